// What the HTTP benchmarks share (realistic.mjs, read-path.mjs): starting and stopping servers, the CPU they
// and their PostgreSQL backends spend (from /proc), one measured autocannon run, the `agora` CLI, and the
// PostgreSQL databases a run creates (dropped at the end, and on SIGINT/SIGTERM).

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readThrough } from './page-cache.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(ROOT, 'bin', 'agora.js');
export const PREFIX = '/public-api/v1';
export const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const { default: autocannon } = await import('autocannon');

let counter = 0;
/** Time-ordered ids like the server's (ordering by id is ordering by creation). */
export const newId = () => (Date.now() * 1000 + (counter++ % 1000)).toString(16).padStart(16, '0') + randomBytes(8).toString('hex');
export const pick = (a) => a[Math.floor(Math.random() * a.length)];
export const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
export const rand = (n) => 1 + Math.floor(Math.random() * n);
export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').trim();

export function startListening(args, env, label, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // BENCH_SERVER_LOG=FILE: the servers' output appended to FILE (with BENCH_NODE_ARGS=--trace-gc, say).
  if (process.env.BENCH_SERVER_LOG) {
    const log = createWriteStream(process.env.BENCH_SERVER_LOG, { flags: 'a' });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-5000)));
  return new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`${label} did not listen: ${err}`)), 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok({ child, url: m[1] });
      }
    });
    child.on('exit', (code) => fail(new Error(`${label} exited ${code}: ${err}`)));
  });
}

export const stop = (child) =>
  new Promise((ok) => {
    if (!child || child.exitCode !== null) return ok();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(timer), ok()));
    child.kill('SIGTERM');
  });

/**
 * CPU ms (user + system) per process, from /proc: the given server processes and their children (the workers),
 * and, with `database`, the PostgreSQL backends serving it (their title is `postgres: [cluster: ]user database
 * host(port) state`).
 */
export function cpuSnapshot(pids, database) {
  const snap = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let f;
    try {
      const s = readFileSync(`/proc/${entry}/stat`, 'utf8');
      f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    } catch {
      continue;
    }
    const pid = Number(entry);
    let mine = pids.includes(pid) || pids.includes(Number(f[1]));
    if (!mine && database) {
      try {
        const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        mine = title.startsWith('postgres: ') && title.split(/\s+/).includes(database);
        if (mine) snap.set(`db:${pid}`, (Number(f[11]) + Number(f[12])) * 10);
        continue;
      } catch {
        continue;
      }
    }
    if (mine) snap.set(String(pid), (Number(f[11]) + Number(f[12])) * 10);
  }
  return snap;
}

/**
 * Major page faults of the servers so far (`/proc/PID/stat`): pages of the memory-mapped store read back from the
 * disk. A run with many measured the disk (the host dropped the page cache mid-run), not the server.
 */
export function majorFaults(pids) {
  let n = 0;
  for (const pid of pids) {
    try {
      const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
      n += Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[9]);
    } catch {
      // gone
    }
  }
  return n;
}

/** CPU ms spent between two snapshots: by the servers, by the database's backends, and backends that left. */
export function cpuSpent(before, after) {
  let server = 0;
  let db = 0;
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (k.startsWith('db:')) db += d;
    else server += d;
  }
  const gone = [...before.keys()].filter((k) => !after.has(k)).length;
  return { server, db, gone };
}

export function cli(args, env) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`agora ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}


/**
 * Waits until the servers (and the database) are idle: autocannon stops without waiting for the answers in
 * flight, so on a slow run up to BENCH_CONNECTIONS queued requests of the warm-up would otherwise be served, and
 * their CPU counted, inside the measured window (with a few dozen requests measured, that doubled CPU/req).
 */
export async function drain(target) {
  let last = cpuSnapshot(target.pids, target.database);
  for (let i = 0; i < 80; i++) {
    await new Promise((ok) => setTimeout(ok, 250));
    const now = cpuSnapshot(target.pids, target.database);
    const { server, db } = cpuSpent(last, now);
    last = now;
    if (server + db <= 10) return;
  }
}

/** The store read into the page cache first (`page-cache.mjs`); says so when that took long (it was not cached). */
export function warmPageCache(file) {
  const { bytes, seconds } = readThrough(file);
  if (seconds > 1) console.log(`(the store was not all in the page cache: ${fmt(bytes / 2 ** 20)} MB read back in ${fmt(seconds, 1)} s)`);
}

/** Traffic sent and not measured: the server's code made hot (JIT) and its caches filled before measuring. */
export async function warm(target, requests, { connections, duration }) {
  await autocannon({ url: target.urls.length === 1 ? target.urls[0] : target.urls, connections, duration, requests });
  await drain(target);
}

/**
 * One autocannon run over `target.urls` (connections round-robin over them), after a second of warm-up; CPU from
 * `target.pids` (and their children) and the backends of `target.database`. `cpu` is µs a request of both,
 * `cpuDb` of the backends alone. `split`: the latencies of each status apart.
 */
export async function measure(label, target, requests, { connections, duration, expectedNon2xx = false, split = false }) {
  const url = target.urls.length === 1 ? target.urls[0] : target.urls;
  if (target.file) warmPageCache(target.file);
  await autocannon({ url, connections, duration: 1, requests }); // warm-up
  await drain(target);
  const cpu0 = cpuSnapshot(target.pids, target.database);
  const faults0 = majorFaults(target.pids);
  const tracker = autocannon({ url, connections, duration, requests, timeout: 10 });
  // The latency of each status apart (in a mixed run, the reads' 200s from the follows' answers).
  const byStatus = new Map();
  if (split)
    tracker.on('response', (_client, status, _bytes, ms) => {
      if (!byStatus.has(status)) byStatus.set(status, []);
      byStatus.get(status).push(ms);
    });
  const r = await tracker;
  const spent = cpuSpent(cpu0, cpuSnapshot(target.pids, target.database));
  const faults = majorFaults(target.pids) - faults0;
  const cpu = ((spent.server + spent.db) * 1000) / r.requests.total;
  const cpuDb = (spent.db * 1000) / r.requests.total;
  const unexpected = r.errors + r.timeouts + (expectedNon2xx ? 0 : r.non2xx);
  const row = { label, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu, cpuDb, unexpected, non2xx: r.non2xx, total: r.requests.total };
  console.log(
    `${label.padEnd(34)} ${fmt(row.rps).padStart(6)} req/s  p50 ${String(row.p50).padStart(4)} ms  p99 ${String(row.p99).padStart(4)} ms  ` +
      `CPU ${fmt(cpu).padStart(5)} µs/req` +
      (target.database ? ` (PostgreSQL ${fmt(cpuDb)}${spent.gone ? `, ${spent.gone} backend(s) left mid-run, their CPU not counted` : ''})` : '') +
      `  ${row.total} req, ${row.non2xx} non-2xx, ${unexpected} unexpected` +
      (faults ? `, ${faults} major page faults (read from disk)` : '') +
      (r.non2xx ? ` (status ${Object.entries(r.statusCodeStats ?? {}).filter(([c]) => !c.startsWith('2')).map(([c, v]) => `${c}×${v.count}`).join(', ')})` : ''),
  );
  for (const [status, times] of [...byStatus].sort(([a], [b]) => a - b)) {
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
    console.log(`  ${status}: ${times.length} answers, p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
  }
  return row;
}

/** PostgreSQL databases this run created, dropped at the end (and on SIGINT/SIGTERM). */
const pgDatabases = [];
export const pgUrl = (database) => {
  const u = new URL(PG_URL);
  u.pathname = `/${database}`;
  return u.toString();
};
/** Runs `sql` on PG_URL's database, or on `url`'s. */
export async function pgAdmin(sql, url = PG_URL) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
/** Creates a database (empty, or a copy of `template`), dropped by dropPgDatabases. */
export async function createPgDatabase(name, template) {
  pgDatabases.push(name);
  await pgAdmin(`create database "${name}"${template ? ` template "${template}"` : ''}`);
}
export async function dropPgDatabases() {
  while (pgDatabases.length) {
    const name = pgDatabases.pop();
    try {
      await pgAdmin(`drop database if exists "${name}" with (force)`);
      console.log(`dropped PostgreSQL database ${name}`);
    } catch (e) {
      console.error(`could not drop PostgreSQL database ${name}: ${e.message}`);
    }
  }
}
for (const sig of ['SIGINT', 'SIGTERM'])
  process.once(sig, () => {
    console.error(`${sig}: dropping the benchmark's databases`);
    void dropPgDatabases().finally(() => process.exit(1));
  });

