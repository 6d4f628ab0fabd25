#!/usr/bin/env node
// The realistic benchmark (issue 7). Run by hand after a build: `npm run bench` (BENCH_SIZES=10000,1000000).
// Never part of the test suite; everything runs on loopback in a temp dir removed at the end.
//
// For each size: creates the store (`agora admin create-key` runs the migrations on a new file), seeds it straight in SQL with
// the triggers set aside (pages, their creators' follows, users, Members' follows of pages, events, access
// requests, invites, notifications), puts the triggers back and lets `agora admin check --repair` recount the
// kept totals; then starts `agora serve` (BENCH_WORKERS, default 1) and, in the same run, a bare node:http
// server answering a fixed 25-item list (bench/api.mjs --bare), and drives them with autocannon:
//   - bare node:http, fixed list (the machine's limit);
//   - varied reads: GET /pages with a random page number (1–400), a random privacy filter or none, as one of
//     four callers (the admin and three Members);
//   - 90 % those reads + 10 % follows (a Member following a random page; 403/404/409 are expected answers);
//   - the pages list, then each other list (users, follows, access requests, invites, events, notifications), with
//     random pages of the list that exist for that caller and filter (up to a cap per list), asked of the server
//     first;
//   - creating pages through the API.
// Server CPU per request comes from /proc (the server and its workers), steadier than req/s on a busy machine.
//
// BENCH_STORES (default `sqlite`) lists the stores measured one after the other on the same seeded community:
//   sqlite  the seeded file, one `agora serve` (BENCH_WORKERS workers);
//   pg1     PostgreSQL, one `agora serve`;
//   pg2     PostgreSQL, two `agora serve` processes on one database, autocannon spreading its connections
//           over both ports (one autocannon, its connections round-robin over the two URLs).
// PostgreSQL is seeded by copying the seeded SQLite file (`agora admin copy`, before any run writes to it) into
// a fresh database on BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres); pg2 gets its own
// database, a `CREATE DATABASE … TEMPLATE` of pg1's taken before pg1 runs, so both start from the same rows.
// The databases are dropped at the end, even on failure. On PostgreSQL the CPU per request adds the CPU of the
// PostgreSQL backends connected to that database (from /proc, matched by the database name in their title),
// since that is where the work moves; the shared background processes (WAL writer, checkpointer) are not counted.
// Env: BENCH_DURATION seconds per run (default 8), BENCH_CONNECTIONS (50), BENCH_SIZES, BENCH_WORKERS,
// BENCH_STORES, BENCH_PG_URL, BENCH_SPLIT=1 (each status's latencies apart); BENCH_RUNS picks runs by name
// (bare,varied,mixed,pages,users,follows,requests,invites,events,notifications,create); BENCH_NODE_ARGS goes to the
// servers' node (`--cpu-prof --cpu-prof-dir=/tmp/prof` profiles them); BENCH_KEEP=1 keeps the seeded store's
// folder, BENCH_DB=FILE runs on such a store again (no seeding); BENCH_SERVER_LOG=FILE appends the servers'
// output to FILE.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN,
  createPgDatabase,
  dropPgDatabases,
  fmt,
  loadavg,
  measure,
  pgUrl,
  pick,
  PREFIX,
  rand,
  ROOT,
  startListening,
  stop,
} from './harness.mjs';
import { benchEnv, copyToPg, followRequest, reuse, seed } from './seed.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SIZES = (process.env.BENCH_SIZES ?? '10000,1000000').split(',').map(Number);
const WORKERS = process.env.BENCH_WORKERS ?? '1';
const RUNS = process.env.BENCH_RUNS ? new Set(process.env.BENCH_RUNS.split(',')) : undefined;
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const wanted = (name) => !RUNS || RUNS.has(name);
const STORES = (process.env.BENCH_STORES ?? 'sqlite').split(',').map((x) => x.trim());
for (const st of STORES) if (!['sqlite', 'pg1', 'pg2'].includes(st)) throw new Error(`BENCH_STORES: unknown store ${st} (sqlite, pg1, pg2)`);

const { request } = await import('undici');
const run = (label, target, requests, expectedNon2xx = false) =>
  measure(label, target, requests, { connections: CONNECTIONS, duration: DURATION, expectedNon2xx, split: !!process.env.BENCH_SPLIT });

/** The scenarios, against one target (its URLs, its server processes, its database). */
async function scenarios(s, target) {
  const callers = [s.admin, ...s.members];
  const privacy = () => pick(['', '&privacy=public', '&privacy=private', '&privacy=secret']);
  const read = () => ({ method: 'GET', path: `${PREFIX}/pages?page=${rand(400)}${privacy()}`, headers: pick(callers) });
  const varied = [{ setupRequest: (req) => ({ ...req, ...read() }) }];
  const follow = () => followRequest(s, s.pageIds);
  const mixed = [{ setupRequest: (req) => ({ ...req, ...(Math.random() < 0.1 ? follow() : read()) }) }];
  // The other lists: a random caller, a random filter, and a random page number of that caller's list with that
  // filter, up to `cap` (the list's own last page, asked of the server first): pages that exist, at both sizes.
  // A page number past the end is answered from the kept count alone; with a fixed range (1–400 whatever the
  // size) most requests at 10,000 were such answers while at a million all were real pages, so the two sizes
  // measured different work. The pages list keeps the issue's own definition (1–400 at every size, above).
  const list = async (path, filters, cap, who = callers) => {
    const ranges = [];
    for (const headers of who)
      for (const filter of filters) {
        const url = `${target.urls[0]}${PREFIX}${path(headers)}?per_page=25${filter}`;
        const res = await request(url, { headers });
        const body = await res.body.json();
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${JSON.stringify(body)}`);
        // A list's total: `total_items`, or the X-Total-Count header of a list answered as an array (notifications).
        const total = Array.isArray(body) ? Number(res.headers['x-total-count']) : body.total_items;
        if (!Number.isInteger(total)) throw new Error(`${url}: no total in the answer`);
        ranges.push({ headers, filter, last: Math.max(1, Math.min(cap, Math.ceil(total / 25))), path: path(headers) });
      }
    return [{ setupRequest: (req) => {
      const r = pick(ranges);
      return { ...req, method: 'GET', path: `${PREFIX}${r.path}?page=${rand(r.last)}${r.filter}`, headers: r.headers };
    } }];
  };
  const rows = [];
  if (wanted('varied')) rows.push(await run('agora, varied reads', target, varied));
  if (wanted('mixed')) rows.push(await run('agora, 90 % reads + 10 % follows', target, mixed, true));
  // The pages list as the other lists are asked: pages that exist for the caller and filter. At 10,000 pages most
  // of the varied reads' private and secret pages (1–400 of lists of about 20) are past the end, answered from the
  // kept count alone: the baseline the other lists compare with is this one.
  if (wanted('pages'))
    rows.push(await run('GET /pages (pages that exist)', target, await list(() => '/pages', ['', '&privacy=public', '&privacy=private', '&privacy=secret'], 400)));
  if (wanted('users')) rows.push(await run('GET /users', target, await list(() => '/users', [''], 4)));
  if (wanted('follows')) rows.push(await run('GET /follows', target, await list(() => '/follows', ['', '&followable_type=User'], 400)));
  if (wanted('requests')) rows.push(await run('GET /page_access_requests', target, await list(() => '/page_access_requests', [''], 40)));
  if (wanted('invites')) rows.push(await run('GET /invites', target, await list(() => '/invites', ['', '&state=waiting'], 40)));
  if (wanted('events')) rows.push(await run('GET /events', target, await list(() => '/events', ['', '&event_date=current_and_coming'], 40)));
  // A Member reads their own notifications.
  const own = (headers) => `/users/${s.memberIds[s.members.indexOf(headers)]}/notifications`;
  if (wanted('notifications')) rows.push(await run('GET /users/{id}/notifications', target, await list(own, [''], 80, s.members)));
  let n = 0;
  const create = [{ setupRequest: (req) => ({
    ...req,
    method: 'POST',
    path: `${PREFIX}/pages`,
    headers: { ...s.admin, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Created ${n++}`, page_configuration_id: s.config, privacy: 'public', user_id: s.adminId }),
  }) }];
  if (wanted('create')) rows.push(await run('POST /pages (creating pages)', target, create));
  return rows;
}

async function benchSize(pages, bareUrl, barePid) {
  const dir = mkdtempSync(join(tmpdir(), 'agora-bench7-'));
  let db = join(dir, 'bench.db');
  const env = benchEnv(dir);
  const servers = [];
  const results = {};
  try {
    if (process.env.BENCH_DB) db = process.env.BENCH_DB;
    const s = process.env.BENCH_DB ? reuse(db, env) : await seed(db, pages, env);
    // PostgreSQL copies are taken now, before any run writes to the seeded file.
    const pgStores = STORES.filter((x) => x.startsWith('pg'));
    const pgDb = {};
    for (const [i, st] of pgStores.entries()) {
      const name = `agora_bench_${process.pid}_${st}`;
      const t0 = performance.now();
      if (i === 0) await copyToPg(db, name, env);
      else {
        await createPgDatabase(name, pgDb[pgStores[0]]);
        console.log(`PostgreSQL ${name} created from ${pgDb[pgStores[0]]} in ${fmt((performance.now() - t0) / 1000, 1)} s`);
      }
      pgDb[st] = name;
    }
    const bare = await run('bare node:http, fixed list', { urls: [bareUrl], pids: [barePid] }, [{ method: 'GET', path: `${PREFIX}/pages` }]);
    for (const st of STORES) {
      const processes = st === 'pg2' ? 2 : 1;
      const where = st === 'sqlite' ? db : pgUrl(pgDb[st]);
      const workers = st === 'sqlite' ? ['--workers', WORKERS] : [];
      for (let i = 0; i < processes; i++)
        servers.push(await startListening([BIN, 'serve', '--port', '0', '--db', where, ...workers], env, `agora serve (${st})`, NODE_ARGS));
      const target = { urls: servers.map((x) => x.url), pids: servers.map((x) => x.child.pid), database: pgDb[st], file: st === 'sqlite' ? db : undefined };
      console.log(
        `\n== ${pages.toLocaleString('en')} pages, ${st === 'sqlite' ? `SQLite, ${WORKERS} worker(s)` : `PostgreSQL, ${processes} process(es)`}, ` +
          `${CONNECTIONS} connections, ${DURATION} s per run; load ${loadavg()}`,
      );
      results[st] = await scenarios(s, target);
      while (servers.length) await stop(servers.pop().child);
    }
    // One table to read them side by side (Markdown, as in docs/performance.md).
    console.log(`\n| run | ${STORES.map((st) => `${st}: req/s | p99 | CPU/req`).join(' | ')} |`);
    console.log(`|---|${STORES.map(() => '---|---|---|').join('')}`);
    console.log(`| bare node:http, fixed list | ${fmt(bare.rps)} | ${bare.p99} ms | ${fmt(bare.cpu)} µs |${STORES.slice(1).map(() => ' | | |').join('')}`);
    results[STORES[0]].forEach((r, i) =>
      console.log(
        `| ${r.label} | ${STORES.map((st) => {
          const x = results[st][i];
          return `${fmt(x.rps)} | ${x.p99} ms | ${fmt(x.cpu)} µs${st === 'sqlite' ? '' : ` (db ${fmt(x.cpuDb)})`}`;
        }).join(' | ')} |`,
      ),
    );
    return results;
  } finally {
    while (servers.length) await stop(servers.pop().child);
    await dropPgDatabases();
    if (process.env.BENCH_KEEP === '1') console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`load before: ${loadavg()}`);
for (const size of SIZES) {
  // A bare server per size: it stops by itself after 10 minutes, and seeding a million pages takes longer.
  const bare = await startListening([join(ROOT, 'bench', 'api.mjs'), '--bare'], process.env, 'bare server');
  try {
    await benchSize(size, bare.url, bare.child.pid);
  } finally {
    await stop(bare.child);
  }
}
console.log(`load after: ${loadavg()}`);
