#!/usr/bin/env node
// Benchmark of notifications (issue 6). Run by hand after a build: `node bench/notifications.mjs`.
// Never part of the test suite. Everything runs on loopback, in a temp dir removed at the end.
//
// 1. Fan-out: seeds a public page with BENCH_MEMBERS members (default 100,000), starts the real
//    `agora serve` on that file, warms it up, then posts BENCH_STATUSES statuses in the page (one every
//    250 ms), twice: alone, then while 8 connections keep reading notification lists. Reports the POST
//    latencies (p50, p99, max) of each phase, the reads' p50/p99 during the fan-out, the rate at which
//    notifications are written, and checks every member got exactly one notification per status.
// 2. A user with 100,000 notifications, in process (createApp + inject on the same kind of store): server time
//    for the first page of unseen ones (mean and p99 over 2,000 requests), the query plan of that list, and the
//    time to mark all of them seen.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'agora.js');
const PREFIX = '/public-api/v1';
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 100_000);
const STATUSES = Number(process.env.BENCH_STATUSES ?? 5);
const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS ?? 100_000);

const dir = mkdtempSync(join(tmpdir(), 'agora-bench-notif-'));

// The CLI is one bundle; the in-process part needs the store and the app as modules, bundled here the same way.
const { build } = await import('esbuild');
await build({
  stdin: {
    contents: [
      "export { openSqliteStore } from './src/store/sqlite.ts';",
      "export { createApp } from './src/server/app.ts';",
      "export { issueApiKey, ensureBootstrapAdmin } from './src/domain/api-keys.ts';",
      "export { newId } from './src/shared/ids.ts';",
    ].join('\n'),
    resolveDir: ROOT,
    loader: 'ts',
  },
  // Beside node_modules, so that the external packages resolve.
  outfile: join(ROOT, 'node_modules', '.cache', 'agora-bench-lib.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  external: ['better-sqlite3', 'fastify', '@fastify/*', 'pino', 'kysely'],
  nodePaths: [join(ROOT, 'node_modules')],
  banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
});
const { openSqliteStore, createApp, issueApiKey, ensureBootstrapAdmin, newId } = await import(join(ROOT, 'node_modules', '.cache', 'agora-bench-lib.mjs'));
const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (n) => `${n.toFixed(2)} ms`;

/** Seeds members and their follows of one page straight into the file (one transaction). */
async function seedPage(file) {
  const store = await openSqliteStore(file);
  const deps = { store, clock: () => new Date() };
  const adminId = await ensureBootstrapAdmin(deps);
  const key = await issueApiKey(deps, adminId);
  await store.close();
  const db = new Database(file);
  const now = new Date(Date.now() - 60_000).toISOString();
  const members = db.prepare("select id from permission_sets where system_key = 'members'").get().id;
  const configId = newId();
  const pageId = newId();
  db.transaction(() => {
    db.prepare('insert into page_configurations (id, name, description, created_at, updated_at) values (?, ?, null, ?, ?)').run(configId, 'Bench', now, now);
    db.prepare(
      "insert into pages (id, name, slug, description, privacy, page_configuration_id, user_id, created_at, updated_at) values (?, 'Big page', 'big-page', null, 'public', ?, ?, ?, ?)",
    ).run(pageId, configId, adminId, now, now);
    const user = db.prepare(
      'insert into users (id, first_name, last_name, nickname, email, password_hash, permission_set_id, slug, conditions_accepted_at, confidentiality_accepted_at, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const follow = db.prepare('insert into follows (id, user_id, followable_type, followable_id, created_at) values (?, ?, ?, ?, ?)');
    for (let i = 0; i < MEMBERS; i++) {
      const id = newId();
      user.run(id, 'Bench', `Member ${i}`, `bench_${i}`, `bench_${i}@example.org`, 'scrypt$x', members, `bench-${i}`, now, now, now, now);
      follow.run(newId(), id, 'Page', pageId, now);
    }
  })();
  const sample = db.prepare("select user_id from follows where followable_id = ? and user_id != ? limit 1").get(pageId, adminId).user_id;
  db.close();
  return { adminId, pageId, sample, key };
}

async function startServer(file) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) ok(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`server exited ${code}`)));
  });
  return { url, stop: () => new Promise((ok) => (child.once('exit', ok), child.kill('SIGTERM'))) };
}

async function fanOutRun() {
  const file = join(dir, 'fanout.db');
  console.log(`seeding a page with ${MEMBERS.toLocaleString('en')} members…`);
  const { pageId, adminId, sample, key } = await seedPage(file);
  const server = await startServer(file);
  const headers = { 'api-key': key.api_key, 'api-secret': key.api_secret, 'content-type': 'application/json' };
  // The first request pays the key's scrypt; it is not what is measured.
  await (await fetch(`${server.url}${PREFIX}/users/${sample}/notifications`, { headers })).arrayBuffer();
  const db = new Database(file, { readonly: true });
  const pending = db.prepare('select count(*) as n from notification_jobs');
  const drained = async () => {
    while (pending.get().n > 0) await new Promise((r) => setTimeout(r, 100));
  };
  const postAll = async () => {
    const times = [];
    for (let i = 0; i < STATUSES; i++) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}${PREFIX}/statuses`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ user_id: adminId, page_id: pageId, content: `Status ${i} to every member` }),
      });
      const body = await res.json();
      times.push(performance.now() - t0);
      if (res.status !== 201) throw new Error(JSON.stringify(body));
      ids.push(body.id);
      await new Promise((r) => setTimeout(r, 250));
    }
    return times;
  };
  const ids = [];
  const started = performance.now();
  const alone = await postAll();
  await drained();
  const reads = [];
  let reading = true;
  const reader = async () => {
    while (reading) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}${PREFIX}/users/${sample}/notifications?status=unseen`, { headers });
      await res.arrayBuffer();
      reads.push(performance.now() - t0);
    }
  };
  const readers = Array.from({ length: 8 }, reader);
  const withReads = await postAll();
  await drained();
  const count = db.prepare(
    "select count(*) as n from notifications n join notification_contents c on c.id = n.content_id where c.notification_type = 'status' and c.target_id = ?",
  );
  const elapsed = (performance.now() - started) / 1000;
  reading = false;
  await Promise.all(readers);
  const perStatus = ids.map((id) => count.get(id).n);
  const elapsedNote = 'both phases';
  const dup = db.prepare('select count(*) as n from (select user_id from notifications group by content_id, user_id having count(*) > 1)').get().n;
  db.close();
  await server.stop();
  const total = perStatus.reduce((a, b) => a + b, 0);
  console.log('\nFan-out');
  for (const [label, posts] of [['alone', alone], ['with 8 readers', withReads]])
    console.log(
      `  POST /statuses to a page of ${MEMBERS.toLocaleString('en')}, ${label}: p50 ${ms(pct(posts, 50))}, p99 ${ms(pct(posts, 99))}, max ${ms(Math.max(...posts))} (${posts.length} posts: ${posts.map((p) => p.toFixed(1)).join(', ')} ms)`,
    );
  console.log(`  reads during the fan-out (8 connections, ${reads.length} requests): p50 ${ms(pct(reads, 50))}, p99 ${ms(pct(reads, 99))}`);
  console.log(`  ${total.toLocaleString('en')} notifications written in ${elapsed.toFixed(1)} s (${elapsedNote}, with the pauses) (${Math.round(total / elapsed).toLocaleString('en')}/s)`);
  console.log(`  every member notified once per status: ${perStatus.every((n) => n === MEMBERS) && dup === 0 ? 'yes' : `NO (${perStatus.join(', ')}; ${dup} duplicates)`}`);

}

async function listRun() {
  const file = join(dir, 'list.db');
  const store = await openSqliteStore(file);
  const deps = { store, clock: () => new Date() };
  const adminId = await ensureBootstrapAdmin(deps);
  const key = await issueApiKey(deps, adminId);
  console.log(`\nseeding one user with ${NOTIFICATIONS.toLocaleString('en')} notifications…`);
  const now = new Date().toISOString();
  await store.transaction(async (tx) => {
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const content = {
          id: newId(),
          notification_type: 'follow',
          action_name: 'followed',
          subject_type: 'User',
          subject_id: adminId,
          subject_slug: 'admin',
          subject_name: 'Agora Administrator',
          target_type: 'User',
          target_id: adminId,
          target_slug: 'admin',
          target_name: 'Agora Administrator',
          final_target_type: 'User',
          final_target_id: adminId,
          final_target_slug: 'admin',
          final_target_name: 'Agora Administrator',
          link_type: 'User',
          link_id: adminId,
          link_slug: 'admin',
          picture_url: null,
          comment_info: '{}',
          created_at: now,
      };
      await tx.notifications.insertContent(content);
      await tx.notifications.insertFor(content.id, [{ userId: adminId, id: newId() }], now);
    }
  });
  const app = await createApp({ store });
  await app.ready();
  const headers = { 'api-key': key.api_key, 'api-secret': key.api_secret };
  const url = `${PREFIX}/users/${adminId}/notifications?status=unseen`;
  for (let i = 0; i < 200; i++) await app.inject({ method: 'GET', url, headers });
  const times = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url, headers });
    times.push(performance.now() - t0);
    if (i === 0 && res.headers['x-total-count'] !== String(NOTIFICATIONS)) throw new Error(`total ${res.headers['x-total-count']}`);
  }
  const db = new Database(file, { readonly: true });
  const plan = db
    .prepare(
      'explain query plan select * from notifications n join notification_contents c on c.id = n.content_id where n.user_id = ? and n.seen = 0 order by n.id desc limit 25 offset 0',
    )
    .all(adminId)
    .map((r) => r.detail);
  db.close();
  const t0 = performance.now();
  const marked = await app.inject({ method: 'PUT', url: `${PREFIX}/users/${adminId}/set_notifications_seen`, headers });
  const markMs = performance.now() - t0;
  await app.close();
  await store.close();
  console.log('\nA user with', NOTIFICATIONS.toLocaleString('en'), 'notifications (in process, inject)');
  console.log(`  first page of unseen ones: mean ${ms(times.reduce((a, b) => a + b, 0) / times.length)}, p99 ${ms(pct(times, 99))}`);
  console.log(`  query plan: ${plan.join(' | ')}`);
  console.log(`  mark all seen: ${JSON.parse(marked.body).updated.toLocaleString('en')} in ${ms(markMs)}`);
}

try {
  await fanOutRun();
  await listRun();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
