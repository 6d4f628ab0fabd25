#!/usr/bin/env node
// A/B of CPU per request on PostgreSQL between this checkout's build and another's (by hand, after both are
// built): `node bench/pg-ab.mjs /path/to/other/checkout`. Each build serves a small database of its own
// (created empty on BENCH_PG_URL, each build migrating its own, dropped at the end), in turn, alternating
// which goes first, BENCH_ROUNDS times (4); each run is BENCH_DURATION seconds (5) of authenticated reads of
// short lists (`GET /users?per_page=10`, `GET /permission_sets`, 10 connections), so the figure is mostly the
// per-request overhead: authentication, the caller, one list. CPU per request is the server process plus the
// PostgreSQL backends of its database, from /proc. Prints each run with the load average, then the medians.

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const other = process.argv[2];
if (!other) throw new Error('usage: node bench/pg-ab.mjs /path/to/other/checkout');
const BUILDS = { this: resolve(dirname(fileURLToPath(import.meta.url)), '..'), other: resolve(other) };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KEY = 'ak_0123456789abcdef';
const SECRET = 'as_0123456789abcdef0123456789abcdef';
const { default: autocannon } = await import('autocannon');

const tag = `${process.pid}`;
const databaseOf = (build) => `agora_ab_${tag}_${build}`;
const urlOf = (database) => {
  const u = new URL(PG_URL);
  u.pathname = `/${database}`;
  return u.toString();
};
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();

/** CPU ms of the server process and of the backends of its database (title `postgres: … user database …`). */
function cpu(pid, database) {
  let server = 0;
  let db = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(f[11]) + Number(f[12])) * 10;
      if (Number(entry) === pid) server += ms;
      else {
        const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (title.startsWith('postgres: ') && title.split(/\s+/).includes(database)) db += ms;
      }
    } catch {
      // A process that ended meanwhile.
    }
  }
  return { server, db };
}

async function start(build) {
  const database = databaseOf(build);
  const child = spawn(process.execPath, [join(BUILDS[build], 'bin/agora.js'), 'serve', '--port', '0', '--db', urlOf(database)], {
    env: {
      ...process.env,
      AGORA_SECRET_KEY: 'pg-ab benchmark key, not a secret',
      AGORA_BOOTSTRAP_API_KEY: KEY,
      AGORA_BOOTSTRAP_API_SECRET: SECRET,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const url = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) ok(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`${build} exited with ${code}: ${err}`)));
  });
  return { child, url, database };
}

const load = (url, duration) =>
  new Promise((ok, fail) =>
    autocannon(
      {
        url,
        connections: 10,
        duration,
        headers: { 'api-key': KEY, 'api-secret': SECRET },
        requests: [
          { method: 'GET', path: '/public-api/v1/users?per_page=10' },
          { method: 'GET', path: '/public-api/v1/permission_sets' },
        ],
      },
      (error, result) => (error ? fail(error) : ok(result)),
    ),
  );

const results = { this: [], other: [] };
try {
  for (const build of Object.keys(BUILDS)) await admin.query(`create database ${databaseOf(build)}`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of round % 2 ? ['other', 'this'] : ['this', 'other']) {
      const s = await start(build);
      try {
        await load(s.url, 1);
        const before = cpu(s.child.pid, s.database);
        const r = await load(s.url, DURATION);
        const after = cpu(s.child.pid, s.database);
        const n = r.requests.total;
        const server = ((after.server - before.server) * 1000) / n;
        const db = ((after.db - before.db) * 1000) / n;
        const avg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
        console.log(
          `round ${round} ${build}: ${n} req, ${r.non2xx} non-2xx, ${Math.round(r.requests.average)} req/s, ` +
            `CPU ${Math.round(server + db)} µs/req (server ${Math.round(server)}, PostgreSQL ${Math.round(db)}); load ${avg}`,
        );
        results[build].push(server + db);
      } finally {
        s.child.kill('SIGTERM');
        await new Promise((ok) => s.child.once('exit', ok));
      }
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(
    `median CPU per request: this ${Math.round(median(results.this))} µs, other ${Math.round(median(results.other))} µs, ` +
      `ratio ${(median(results.this) / median(results.other)).toFixed(2)}`,
  );
} finally {
  for (const build of Object.keys(BUILDS)) await admin.query(`drop database if exists ${databaseOf(build)}`).catch(() => {});
  await admin.end();
}
