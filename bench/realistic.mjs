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
//   - each other list (users, follows, access requests, invites, events, notifications) with random pages;
//   - creating pages through the API.
// Server CPU per request comes from /proc (the server and its workers), steadier than req/s on a busy machine.
// Env: BENCH_DURATION seconds per run (default 8), BENCH_CONNECTIONS (50), BENCH_SIZES, BENCH_WORKERS;
// BENCH_RUNS picks runs by name (bare,varied,mixed,users,follows,requests,invites,events,notifications,create);
// BENCH_NODE_ARGS goes to the server's node (`--cpu-prof --cpu-prof-dir=/tmp/prof` profiles it);
// BENCH_KEEP=1 keeps the seeded store's folder, BENCH_DB=FILE runs on such a store again (no seeding); AGORA_RESPONSE_CACHE=0 reaches the server (the response cache off).

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

const { default: autocannon } = await import('autocannon');
const { default: Database } = await import('better-sqlite3');

let counter = 0;
/** Time-ordered ids like the server's (ordering by id is ordering by creation). */
const newId = () => (Date.now() * 1000 + (counter++ % 1000)).toString(16).padStart(16, '0') + randomBytes(8).toString('hex');
const pick = (a) => a[Math.floor(Math.random() * a.length)];
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

function startListening(args, env, label, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** CPU ms (user + system) of a process and of its children (the workers), from /proc. */
function cpuMs(pid) {
  const stat = (p) => {
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      return s.slice(s.lastIndexOf(')') + 2).split(' ');
    } catch {
      return undefined;
    }
  };
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = stat(entry);
    if (f && (Number(entry) === pid || Number(f[1]) === pid)) total += (Number(f[11]) + Number(f[12])) * 10;
  }
  return total;
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
    const insNotification = sqlite.prepare(`insert into notifications values (?, ?, ?, 0, ?, ?)`);
    for (let i = 0; i < 2000; i++) {
      const content = newId();
      insContent.run(content, pick(users), now);
      for (const c of callers) insNotification.run(newId(), c, content, now, now);
    }
    for (const c of callers) sqlite.prepare(`insert or replace into notification_counters values (?, 2000, 2000)`).run(c);
  })();
  for (const i of indexes) sqlite.exec(i.sql);
  for (const t of triggers) sqlite.exec(t.sql);
  // What the triggers set aside would have copied: a follow's (an event's) page's secrecy (migration 0007).
  sqlite.exec(`update follows set secret_page = coalesce((select p.privacy = 'secret' from pages p where p.id = follows.followable_id and follows.followable_type = 'Page'), 0)`);
  sqlite.exec(`update events set secret_page = coalesce((select p.privacy = 'secret' from pages p where p.id = events.page_id), 0)`);
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

async function run(label, url, pid, requests, expectedNon2xx = false) {
  await autocannon({ url, connections: CONNECTIONS, duration: 1, requests }); // warm-up
  const cpu0 = cpuMs(pid);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, requests, timeout: 10 });
  const cpu = ((cpuMs(pid) - cpu0) * 1000) / r.requests.total;
  const unexpected = r.errors + r.timeouts + (expectedNon2xx ? 0 : r.non2xx);
  const row = { label, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu, unexpected, non2xx: r.non2xx, total: r.requests.total };
  console.log(
    `${label.padEnd(34)} ${fmt(row.rps).padStart(6)} req/s  p50 ${String(row.p50).padStart(4)} ms  p99 ${String(row.p99).padStart(4)} ms  ` +
      `CPU ${fmt(cpu).padStart(5)} µs/req  ${row.total} req, ${row.non2xx} non-2xx, ${unexpected} unexpected` +
      (r.non2xx ? ` (${Object.entries(r.statusCodeStats ?? {}).filter(([c]) => !c.startsWith('2')).map(([c, v]) => `${c}: ${v.count}`).join(', ')})` : ''),
  );
  return row;
}

const rand = (n) => 1 + Math.floor(Math.random() * n);

async function benchSize(pages, bareUrl, barePid) {
  const dir = mkdtempSync(join(tmpdir(), 'agora-bench7-'));
  const db = join(dir, 'bench.db');
  const env = { ...process.env, HOME: dir, NO_COLOR: '1' };
  for (const k of ['AGORA_URL', 'AGORA_PROFILE', 'AGORA_API_KEY', 'AGORA_API_SECRET', 'AGORA_DB', 'AGORA_PORT']) delete env[k];
  let agora;
  try {
    const s = process.env.BENCH_DB ? reuse(process.env.BENCH_DB, env) : await seed(db, pages, env);
    agora = await startListening([BIN, 'serve', '--port', '0', '--db', process.env.BENCH_DB ?? db, '--workers', WORKERS], env, 'agora serve', NODE_ARGS);
    const pid = agora.child.pid;
    const callers = [s.admin, ...s.members];
    // Each caller's key verified once (scrypt) before the runs, as a client that logged in would be.
    for (const headers of callers) await fetch(`${agora.url}${PREFIX}/users?per_page=1`, { headers }).then((r) => r.arrayBuffer());
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
    const list = (path) => [{ setupRequest: (req) => ({ ...req, method: 'GET', path: `${PREFIX}${path()}`, headers: pick(callers) }) }];
    const rows = [];
    console.log(`\n== ${pages.toLocaleString('en')} pages, ${WORKERS} worker(s), ${CONNECTIONS} connections, ${DURATION} s per run`);
    if (wanted('bare')) rows.push(await run('bare node:http, fixed list', bareUrl, barePid, [{ method: 'GET', path: `${PREFIX}/pages` }]));
    if (wanted('varied')) rows.push(await run('agora, varied reads', agora.url, pid, varied));
    if (wanted('mixed')) rows.push(await run('agora, 90 % reads + 10 % follows', agora.url, pid, mixed, true));
    if (wanted('users')) rows.push(await run('GET /users', agora.url, pid, list(() => `/users?page=${rand(4)}`)));
    if (wanted('follows')) rows.push(await run('GET /follows', agora.url, pid, list(() => `/follows?page=${rand(400)}${pick(['', '&followable_type=User'])}`)));
    if (wanted('requests')) rows.push(await run('GET /page_access_requests', agora.url, pid, list(() => `/page_access_requests?page=${rand(40)}`)));
    if (wanted('invites')) rows.push(await run('GET /invites', agora.url, pid, list(() => `/invites?page=${rand(40)}${pick(['', '&state=waiting'])}`)));
    if (wanted('events')) rows.push(await run('GET /events', agora.url, pid, list(() => `/events?page=${rand(40)}${pick(['', '&event_date=current_and_coming'])}`)));
    const notes = [{ setupRequest: (req) => {
      const i = Math.floor(Math.random() * 3);
      return { ...req, method: 'GET', path: `${PREFIX}/users/${s.memberIds[i]}/notifications?page=${rand(80)}`, headers: s.members[i] };
    } }];
    if (wanted('notifications')) rows.push(await run('GET /users/{id}/notifications', agora.url, pid, notes));
    let n = 0;
    const create = [{ setupRequest: (req) => ({
      ...req,
      method: 'POST',
      path: `${PREFIX}/pages`,
      headers: { ...s.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Created ${n++}`, page_configuration_id: s.config, privacy: 'public', user_id: s.adminId }),
    }) }];
    if (wanted('create')) rows.push(await run('POST /pages (creating pages)', agora.url, pid, create));
    return rows;
  } finally {
    await stop(agora?.child);
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
