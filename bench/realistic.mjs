#!/usr/bin/env node
// The realistic benchmark (issue 7). Run by hand after a build: `npm run bench` (BENCH_SIZES=10000,1000000).
// Never part of the test suite; everything runs on loopback in a temp dir removed at the end.
//
// For each size: creates the store (`agora admin check` runs the migrations), seeds it straight in SQL with
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

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readThrough } from './page-cache.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'agora.js');
const PREFIX = '/public-api/v1';
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SIZES = (process.env.BENCH_SIZES ?? '10000,1000000').split(',').map(Number);
const WORKERS = process.env.BENCH_WORKERS ?? '1';
const RUNS = process.env.BENCH_RUNS ? new Set(process.env.BENCH_RUNS.split(',')) : undefined;
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const wanted = (name) => !RUNS || RUNS.has(name);
const STORES = (process.env.BENCH_STORES ?? 'sqlite').split(',').map((x) => x.trim());
for (const st of STORES) if (!['sqlite', 'pg1', 'pg2'].includes(st)) throw new Error(`BENCH_STORES: unknown store ${st} (sqlite, pg1, pg2)`);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const { default: autocannon } = await import('autocannon');
const { default: Database } = await import('better-sqlite3');
const { request } = await import('undici');

let counter = 0;
/** Time-ordered ids like the server's (ordering by id is ordering by creation). */
const newId = () => (Date.now() * 1000 + (counter++ % 1000)).toString(16).padStart(16, '0') + randomBytes(8).toString('hex');
const pick = (a) => a[Math.floor(Math.random() * a.length)];
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

function startListening(args, env, label, nodeArgs = []) {
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

const stop = (child) =>
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
function cpuSnapshot(pids, database) {
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
function majorFaults(pids) {
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
function cpuSpent(before, after) {
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

function cli(args, env) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`agora ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Seeds a community of `pages` pages straight into the store, triggers set aside, then recounted. */
async function seed(db, pages, env) {
  cli(['admin', 'check', '--db', db], env); // creates the schema
  const key = JSON.parse(cli(['admin', 'create-key', '--db', db, '--json'], env));
  const sqlite = new Database(db);
  const triggers = sqlite.prepare(`select name, sql from sqlite_master where type = 'trigger'`).all();
  for (const t of triggers) sqlite.exec(`drop trigger ${t.name}`);
  // A bulk load: the secondary indexes of the seeded tables are built once at the end (sorted, much faster
  // than a million inserts into each), with a large page cache meanwhile.
  sqlite.pragma('cache_size = -1000000');
  const seeded = ['users', 'pages', 'follows', 'events', 'page_access_requests', 'invites', 'notifications', 'notification_contents'];
  const indexes = sqlite
    .prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null and sql not like '% unique %' and tbl_name in (${seeded.map(() => '?').join(', ')})`)
    .all(...seeded);
  for (const i of indexes) sqlite.exec(`drop index ${i.name}`);
  const now = new Date().toISOString();
  const roles = Object.fromEntries(sqlite.prepare('select system_key, id from permission_sets').all().map((r) => [r.system_key, r.id]));
  const hash = sqlite.prepare('select password_hash from users limit 1').get().password_hash;
  const userCount = Math.max(100, pages / 100);
  const users = [];
  const configs = Array.from({ length: 10 }, newId);
  const pageIds = [];
  const t0 = performance.now();
  sqlite.transaction(() => {
    const insUser = sqlite.prepare(
      `insert into users (id, first_name, last_name, nickname, email, password_hash, permission_set_id, slug,
        conditions_accepted_at, confidentiality_accepted_at, created_at, updated_at, nickname_key)
       values (?, 'Bench', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < userCount; i++) {
      const id = newId();
      users.push(id);
      insUser.run(id, `User ${i}`, `bench_${i}`, `bench${i}@example.org`, hash, roles.members, `bench-${i}`, now, now, now, now, `bench_${i}`);
    }
    const insConfig = sqlite.prepare(`insert into page_configurations values (?, ?, null, ?, ?)`);
    configs.forEach((id, i) => insConfig.run(id, `Config ${i}`, now, now));
    const insPage = sqlite.prepare(`insert into pages values (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const insFollow = sqlite.prepare(`insert or ignore into follows (id, user_id, followable_type, followable_id, created_at) values (?, ?, ?, ?, ?)`);
    for (let i = 0; i < pages; i++) {
      const id = newId();
      pageIds.push(id);
      const owner = users[i % userCount];
      const privacy = i % 10 === 8 ? 'private' : i % 10 === 9 ? 'secret' : 'public';
      insPage.run(id, `Page ${i}`, `page-${i}`, i % 3 ? `A page of the benchmark, number ${i}` : null, privacy, configs[i % 10], owner, now, now);
      insFollow.run(newId(), owner, 'Page', id, now);
    }
    // Every user follows 20 pages and 5 users.
    for (const u of users) {
      for (let k = 0; k < 20; k++) insFollow.run(newId(), u, 'Page', pick(pageIds), now);
      for (let k = 0; k < 5; k++) insFollow.run(newId(), u, 'User', pick(users), now);
    }
    const insEvent = sqlite.prepare(
      `insert into events (id, name, slug, description, user_id, page_id, start_date, end_date, places_limit, attendees_count, tickets, created_at, updated_at)
       values (?, ?, ?, null, ?, null, ?, ?, null, 0, '[]', ?, ?)`,
    );
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < pages / 10; i++) {
      const start = base + Math.floor(Math.random() * 730) * 86_400_000;
      insEvent.run(newId(), `Event ${i}`, `event-${i}`, pick(users), new Date(start).toISOString(), new Date(start + 3 * 3_600_000).toISOString(), now, now);
    }
    const insRequest = sqlite.prepare(`insert into page_access_requests values (?, ?, ?, ?, 0, ?, ?, ?)`);
    const insInvite = sqlite.prepare(`insert into invites values (?, 'Page', ?, ?, ?, ?, null, 0, ?, ?, ?)`);
    for (let i = 0; i < pages / 10; i++) {
      const p = i * 10 + 8; // a private page
      if (p >= pages) break;
      insRequest.run(newId(), pageIds[p], pick(users), i % 2 ? 'accepted' : 'waiting', now, now, users[p % userCount]);
      insInvite.run(newId(), pageIds[p], users[p % userCount], pick(users), i % 2 ? 'refused' : 'waiting', now, now, users[p % userCount]);
    }
  })();
  // Notifications for the callers: 2,000 each.
  const callers = users.slice(0, 3);
  sqlite.transaction(() => {
    const insContent = sqlite.prepare(
      `insert into notification_contents (id, notification_type, action_name, subject_type, subject_id, subject_name, final_target_name, link_type, comment_info, created_at)
       values (?, 'follow', 'followed', 'User', ?, 'Someone', 'Profile', 'User', '{}', ?)`,
    );
    const insNotification = sqlite.prepare(
      `insert into notifications (id, user_id, content_id, seen, created_at, updated_at, seq) values (?, ?, ?, 0, ?, ?, ?)`,
    );
    for (let i = 0; i < 2000; i++) {
      const content = newId();
      insContent.run(content, pick(users), now);
      for (const c of callers) insNotification.run(newId(), c, content, now, now, i + 1);
    }
    for (const c of callers)
      sqlite.prepare(`insert or replace into notification_counters (user_id, total, unseen, seq) values (?, 2000, 2000, 2000)`).run(c);
  })();
  for (const i of indexes) sqlite.exec(i.sql);
  // What the triggers set aside would have copied: a follow's (an event's) page's secrecy (migration 0007); before
  // the triggers are back (a change of the copy moves the row's kept counts, which the repair below rewrites anyway).
  sqlite.exec(`update follows set secret_page = coalesce((select p.privacy = 'secret' from pages p where p.id = follows.followable_id and follows.followable_type = 'Page'), 0)`);
  sqlite.exec(`update events set secret_page = coalesce((select p.privacy = 'secret' from pages p where p.id = events.page_id), 0)`);
  for (const t of triggers) sqlite.exec(t.sql);
  sqlite
    .prepare(`insert or replace into list_counts values ('events.longest_ms', (select max(cast((julianday(end_date) - julianday(start_date)) * 86400000 as integer) + 1) from events))`)
    .run();
  sqlite.close();
  const seedMs = performance.now() - t0;
  const t1 = performance.now();
  const { keys, peakKb } = await repairCounts(db, env);
  const recount = performance.now() - t1;
  console.log(
    `seeded ${pages} pages, ${userCount} users, ${pages / 10} events, requests and invites in ${fmt(seedMs / 1000, 1)} s; ` +
      `recount of every kept total (admin check --repair: ${keys} keys written) in ${fmt(recount / 1000, 1)} s, peak RSS ${fmt(peakKb / 1024)} MB`,
  );
  return callersOf(db, env, key, configs[0], callers, pageIds, users);
}

function callersOf(db, env, key, config, callers, pageIds, users) {
  const memberKeys = callers.map((id) => JSON.parse(cli(['admin', 'create-key', '--db', db, '--user', id, '--json'], env)));
  const headers = (k) => ({ 'api-key': k.api_key, 'api-secret': k.api_secret });
  return { adminId: key.user_id, config, admin: headers(key), members: memberKeys.map(headers), memberIds: callers, pageIds, users };
}

/** A store seeded before (BENCH_DB, e.g. kept with BENCH_KEEP=1): its callers and ids, read back. */
function reuse(db, env) {
  const key = JSON.parse(cli(['admin', 'create-key', '--db', db, '--json'], env));
  const sqlite = new Database(db, { readonly: true });
  const users = sqlite.prepare(`select id from users where first_name = 'Bench' order by rowid`).pluck().all();
  const config = sqlite.prepare('select id from page_configurations order by rowid limit 1').pluck().get();
  const pageIds = sqlite.prepare(`select id from pages where name like 'Page %' order by rowid`).pluck().all();
  sqlite.close();
  console.log(`reusing ${db}: ${pageIds.length} pages, ${users.length} users`);
  return callersOf(db, env, key, config, users.slice(0, 3), pageIds, users);
}

/** `agora admin check --repair`, its lines counted as they come (a million keys is too much to hold) and its peak RSS. */
function repairCounts(db, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'admin', 'check', '--db', db, '--repair'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let keys = 0;
    let peakKb = 0;
    let err = '';
    const watch = setInterval(() => {
      try {
        const rss = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (rss) peakKb = Math.max(peakKb, Number(rss[1]));
      } catch {
        // gone
      }
    }, 500);
    child.stdout.on('data', (d) => {
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) keys++;
    });
    child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
    child.on('exit', (code, signal) => {
      clearInterval(watch);
      if (code === 0) resolve({ keys, peakKb });
      else reject(new Error(`admin check --repair failed (${code ?? signal}): ${err}`));
    });
  });
}

/**
 * Waits until the servers (and the database) are idle: autocannon stops without waiting for the answers in
 * flight, so on a slow run up to BENCH_CONNECTIONS queued requests of the warm-up would otherwise be served, and
 * their CPU counted, inside the measured window (with a few dozen requests measured, that doubled CPU/req).
 */
async function drain(target) {
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
function warmPageCache(file) {
  const { bytes, seconds } = readThrough(file);
  if (seconds > 1) console.log(`(the store was not all in the page cache: ${fmt(bytes / 2 ** 20)} MB read back in ${fmt(seconds, 1)} s)`);
}

/** One autocannon run over `target.urls` (connections round-robin over them); CPU from `target.pids`/`database`. */
async function run(label, target, requests, expectedNon2xx = false) {
  const url = target.urls.length === 1 ? target.urls[0] : target.urls;
  if (target.file) warmPageCache(target.file);
  await autocannon({ url, connections: CONNECTIONS, duration: 1, requests }); // warm-up
  await drain(target);
  const cpu0 = cpuSnapshot(target.pids, target.database);
  const faults0 = majorFaults(target.pids);
  const tracker = autocannon({ url, connections: CONNECTIONS, duration: DURATION, requests, timeout: 10 });
  // BENCH_SPLIT=1: the latency of each status apart (in the mixed run, the reads' 200s from the follows' answers).
  const byStatus = new Map();
  if (process.env.BENCH_SPLIT)
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

const rand = (n) => 1 + Math.floor(Math.random() * n);

/** The scenarios, against one target (its URLs, its server processes, its database). */
async function scenarios(s, target) {
  const callers = [s.admin, ...s.members];
  const privacy = () => pick(['', '&privacy=public', '&privacy=private', '&privacy=secret']);
  const read = () => ({ method: 'GET', path: `${PREFIX}/pages?page=${rand(400)}${privacy()}`, headers: pick(callers) });
  const varied = [{ setupRequest: (req) => ({ ...req, ...read() }) }];
  const follow = () => {
    const i = Math.floor(Math.random() * 3);
    return {
      method: 'POST',
      path: `${PREFIX}/follows`,
      headers: { ...s.members[i], 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: s.memberIds[i], followable_type: 'Page', followable_id: pick(s.pageIds) }),
    };
  };
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

/** PostgreSQL databases this run created, dropped at the end (and on SIGINT/SIGTERM). */
const pgDatabases = [];
const pgUrl = (database) => {
  const u = new URL(PG_URL);
  u.pathname = `/${database}`;
  return u.toString();
};
async function pgAdmin(sql) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
async function dropPgDatabases() {
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

async function benchSize(pages, bareUrl, barePid) {
  const dir = mkdtempSync(join(tmpdir(), 'agora-bench7-'));
  let db = join(dir, 'bench.db');
  const env = { ...process.env, HOME: dir, NO_COLOR: '1' };
  for (const k of ['AGORA_URL', 'AGORA_PROFILE', 'AGORA_API_KEY', 'AGORA_API_SECRET', 'AGORA_DB', 'AGORA_PORT']) delete env[k];
  env.AGORA_SECRET_KEY ??= randomBytes(32).toString('hex');
  // Four callers answered from the response cache go past the default 5,000 requests a second per key: the
  // limiter still runs (its cost is measured), but its 429s would stand in for the answers being measured.
  env.AGORA_RATE_LIMIT ??= '1000000';
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
      if (i === 0) {
        pgDatabases.push(name);
        await pgAdmin(`create database "${name}"`);
        const out = cli(['admin', 'copy', '--from', db, '--to', pgUrl(name)], env);
        console.log(`copied into PostgreSQL ${name} (agora admin copy) in ${fmt((performance.now() - t0) / 1000, 1)} s: ${out.trim().split('\n').at(-1)}`);
      } else {
        pgDatabases.push(name);
        await pgAdmin(`create database "${name}" template "${pgDb[pgStores[0]]}"`);
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
          `${CONNECTIONS} connections, ${DURATION} s per run; load ${readFileSync('/proc/loadavg', 'utf8').trim()}`,
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

console.log(`load before: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
for (const size of SIZES) {
  // A bare server per size: it stops by itself after 10 minutes, and seeding a million pages takes longer.
  const bare = await startListening([join(ROOT, 'bench', 'api.mjs'), '--bare'], process.env, 'bare server');
  try {
    await benchSize(size, bare.url, bare.child.pid);
  } finally {
    await stop(bare.child);
  }
}
console.log(`load after: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
