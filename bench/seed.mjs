// The seeded community of the HTTP benchmarks (realistic.mjs, read-path.mjs): written straight into a SQLite
// store with the triggers set aside, then recounted by `agora admin check --repair`; its callers' API keys.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BIN, cli, createPgDatabase, fmt, newId, pgAdmin, pgUrl, pick, PREFIX, ROOT } from './harness.mjs';

const { default: Database } = await import('better-sqlite3');

/** Seeds a community of `pages` pages straight into the store, triggers set aside, then recounted. */
export async function seed(db, pages, env) {
  // create-key makes the store (its migrations) when the file is new; `admin check` refuses a missing file.
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
        conditions_accepted_at, confidentiality_accepted_at, created_at, updated_at, nickname_key, nickname_skeleton)
       values (?, 'Bench', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < userCount; i++) {
      const id = newId();
      users.push(id);
      insUser.run(id, `User ${i}`, `bench_${i}`, `bench${i}@example.org`, hash, roles.members, `bench-${i}`, now, now, now, now, `bench_${i}`, `bench_${i}`);
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
    // Moderation at work: four users suspended, none of the callers (the first three): two until lifted, one until
    // a day far ahead, one whose suspension has ended. Their names and notifications run through the suspension checks.
    const insSuspension = sqlite.prepare(`insert into suspensions (user_id, reason, until, created_at, created_by) values (?, 'benchmark', ?, ?, ?)`);
    const ends = [null, null, '2099-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'];
    ends.forEach((until, i) => insSuspension.run(users[10 + 20 * i], until, now, key.user_id));
  })();
  // BENCH_STATUSES=N: N statuses in each page (by random users, a second apart, the newest now), for the stream and
  // GET /statuses (read-path.mjs's `stream` and `statuses` classes). None by default: the other classes' figures
  // are of a community without them.
  const perPage = Number(process.env.BENCH_STATUSES ?? 0);
  if (perPage > 0)
    sqlite.transaction(() => {
      const insStatus = sqlite.prepare(`insert into statuses (id, user_id, content, page_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)`);
      const count = pages * perPage;
      const start = Date.now() - count * 1000;
      for (let i = 0; i < count; i++) {
        const at = start + i * 1000;
        const when = new Date(at).toISOString();
        insStatus.run(newId(), pick(users), `Status ${i} of the benchmark`, pick(pageIds), when, when);
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
    `seeded ${pages} pages, ${userCount} users (4 suspended), ${pages / 10} events, requests and invites in ${fmt(seedMs / 1000, 1)} s; ` +
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
export function reuse(db, env) {
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

/** The environment of the benchmark's servers and CLI runs: `dir` as their home, no client settings of the shell. */
export function benchEnv(dir) {
  const env = { ...process.env, HOME: dir, NO_COLOR: '1' };
  for (const k of ['AGORA_URL', 'AGORA_PROFILE', 'AGORA_API_KEY', 'AGORA_API_SECRET', 'AGORA_DB', 'AGORA_PORT']) delete env[k];
  env.AGORA_SECRET_KEY ??= randomBytes(32).toString('hex');
  // A benchmark's few callers, each on one key at full speed, go past the default 5,000 requests a second per key:
  // the limiter still runs (its cost is measured), but its 429s would stand in for the answers being measured.
  env.AGORA_RATE_LIMIT ??= '1000000';
  return env;
}

/**
 * The seeded store copied into a new PostgreSQL database `name` (`agora admin copy`), then vacuumed and analysed:
 * left to autovacuum, the freshly loaded tables would be analysed at some moment of a measured run, and until
 * vacuumed their index-only scans read the table too (the visibility map is empty), as no settled database does.
 */
export async function copyToPg(db, name, env) {
  const t0 = performance.now();
  await createPgDatabase(name);
  const out = cli(['admin', 'copy', '--from', db, '--to', pgUrl(name)], env);
  await pgAdmin('vacuum analyze', pgUrl(name));
  console.log(`copied into PostgreSQL ${name} (agora admin copy, vacuum analyze) in ${fmt((performance.now() - t0) / 1000, 1)} s: ${out.trim().split('\n').at(-1)}`);
}

/** A write of the mixed runs: one of the seeded Members (`s`, from seed) follows one of `pageIds`. */
export function followRequest(s, pageIds) {
  const i = Math.floor(Math.random() * s.members.length);
  return {
    method: 'POST',
    path: `${PREFIX}/follows`,
    headers: { ...s.members[i], 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: s.memberIds[i], followable_type: 'Page', followable_id: pick(pageIds) }),
  };
}
