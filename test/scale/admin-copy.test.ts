import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { COPIED_TABLES } from '../../src/store/copy.js';
import { openStore } from '../../src/store/open.js';
import { call, createUser } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';
import { onPostgres, openRaw, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * `agora admin copy`: the demo community plus 3,000 pages (seeded straight into the file, as an import or an
 * old community would have them) copied into a new store, then every list answered the same by a server on
 * each. SQLite → SQLite, and SQLite → PostgreSQL when AGORA_TEST_DB names one (every secret then sealed by the
 * tests' AGORA_SECRET_KEY, on both sides).
 */
const PAGES = 3_000;
const ENV = { AGORA_WEBHOOKS_ALLOW_PRIVATE: '1', AGORA_WEBHOOK_RETRY_SCHEDULE: '3600' };
const KEY_ENV: Record<string, string> = onPostgres ? { AGORA_SECRET_KEY: TEST_SECRET_KEY } : {};
const copyCli = (from: string, to: string) => runCli(['admin', 'copy', '--from', from, '--to', to], { home: source.dir, env: KEY_ENV });

let source: RunningServer;
let sourceDb: string;
let copyDb: string;
let copied: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agora-test-'));
  source = await startServer({ env: ENV, args: ['--demo'], dir, db: join(dir, 'agora.db') });
  sourceDb = source.db;
  const pgDir = join(dir, 'pg');
  mkdirSync(pgDir);
  copyDb = onPostgres ? await storeTargetFor(pgDir, { empty: true }) : join(dir, 'copy.db');
  // A webhook (its secret sealed under the source's key) with a delivery still pending: its receiver is down.
  const hook = await call(source, 'POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['page_access_request.created'] } });
  expect(hook.status).toBe(201);
  const pages = await call(source, 'GET', '/pages?privacy=private');
  const asker = await createUser(source);
  expect((await call(source, 'POST', '/page_access_requests', { body: { page_id: pages.body.items[0].id, user_id: asker.id } })).status).toBe(201);
  await source.stop();

  const raw = new Database(sourceDb);
  const config = raw.prepare('select id from page_configurations limit 1').pluck().get() as string;
  const owner = raw.prepare("select id from users where nickname = 'ada'").pluck().get() as string;
  const insert = raw.prepare(
    'insert into pages (id, name, slug, description, privacy, page_configuration_id, user_id, created_at, updated_at) values (?, ?, ?, null, ?, ?, ?, ?, ?)',
  );
  const follow = raw.prepare('insert into follows (id, user_id, followable_type, followable_id, created_at) values (?, ?, ?, ?, ?)');
  raw.transaction(() => {
    for (let i = 0; i < PAGES; i++) {
      const id = newId();
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      insert.run(id, `Seeded ${i}`, `seeded-${i}`, ['public', 'private', 'secret'][i % 3], config, owner, at, at);
      follow.run(newId(), owner, 'Page', id, at);
    }
  })();
  raw.close();
  copied = await copyCli(sourceDb, copyDb);
}, 120_000);

afterAll(() => {
  if (source) removeDir(source.dir);
});

/** 64-bit integers as numbers, as the store reads them. */
const pgTypes = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) };

const rowsOf = async (target: string, table: string, key: readonly string[]) => {
  if (target.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: target, types: pgTypes as pg.CustomTypesConfig });
    await client.connect();
    try {
      return (await client.query(`select * from ${table} order by ${key.join(', ')}`)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  }
  const db = new Database(target, { readonly: true });
  try {
    return db.prepare(`select * from ${table} order by ${key.join(', ')}`).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};

describe('agora admin copy', () => {
  it('copies every table row for row: ids, hashes, timestamps and pending deliveries intact', async () => {
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr).toBe(''); // no progress bar when stderr is not a terminal
    expect(copied.stdout).toMatch(/every table counts the same on both sides, and the kept totals agree with a recount/);
    expect(copied.stdout).toContain(`pages\t${PAGES + 3}\t${PAGES + 3}`);
    for (const { table, key } of COPIED_TABLES) {
      const before = await rowsOf(sourceDb, table, key);
      const after = await rowsOf(copyDb, table, key);
      if (table === 'webhooks') {
        // Sealed again under the copy's own key: the sealed text differs, the rest does not.
        expect(after.map(({ secret, ...rest }) => rest), table).toEqual(before.map(({ secret, ...rest }) => rest));
        expect(after[0]!.secret).not.toBe(before[0]!.secret);
      } else expect(after, table).toEqual(before);
    }
    const pending = (await rowsOf(copyDb, 'webhook_deliveries', ['id'])).filter((d) => d.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    // The longest event's length is a bound, not a count: SQLite's julianday arithmetic may land a millisecond
    // short of PostgreSQL's exact figure, so it is allowed that millisecond.
    const kept = async (target: string) => (await rowsOf(target, 'list_counts', ['key'])).filter((r) => r.n !== 0);
    const [copiedCounts, sourceCounts] = [await kept(copyDb), await kept(sourceDb)];
    const longest = (rows: Record<string, unknown>[]) => Number(rows.find((r) => r.key === 'events.longest_ms')?.n);
    const others = (rows: Record<string, unknown>[]) => rows.filter((r) => r.key !== 'events.longest_ms');
    expect(others(copiedCounts)).toEqual(others(sourceCounts));
    expect(Math.abs(longest(copiedCounts) - longest(sourceCounts))).toBeLessThanOrEqual(1);
    expect(longest(sourceCounts)).toBeGreaterThan(0);
  });

  it('opens the webhook secrets under the copy’s key to the same clear text', async () => {
    const secretKey = KEY_ENV.AGORA_SECRET_KEY;
    const [a, b] = await Promise.all([openStore(sourceDb, { secretKey }), openStore(copyDb, { secretKey })]);
    try {
      const [hookA] = await a.webhooks.all();
      const [hookB] = await b.webhooks.all();
      expect(b.webhooks.secrets.open(hookB!.secret)).toBe(a.webhooks.secrets.open(hookA!.secret));
      expect(b.webhooks.secrets.open(hookB!.secret)).toMatch(/^whsec_/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('answers every list the same through a server on each store', async () => {
    const env = { ...ENV, AGORA_BOOTSTRAP_API_KEY: source.admin.key, AGORA_BOOTSTRAP_API_SECRET: source.admin.secret };
    const [a, b] = await Promise.all([startServer({ env, dir: source.dir, db: sourceDb }), startServer({ env, dir: source.dir, db: copyDb })]);
    try {
      const admin = (await call(a, 'GET', '/users?nickname=admin', { as: source.admin })).body.items[0].id as string;
      const urls = [
        '/users?per_page=100',
        '/pages',
        '/pages?per_page=100&page=17',
        '/pages?privacy=secret&per_page=9&page=40',
        `/pages?owner=${admin}`,
        '/page_configurations',
        '/follows?per_page=100&page=12',
        '/follows?followable_type=User',
        '/page_access_requests',
        '/invites',
        '/events',
        '/permission_sets',
        '/webhooks',
        '/audit_log?per_page=100',
        '/moderation_queue',
        `/users/${admin}/notifications?per_page=100`,
        `/users/${admin}/stream`,
      ];
      for (const url of urls) {
        const [fromA, fromB] = await Promise.all([call(a, 'GET', url, { as: source.admin }), call(b, 'GET', url, { as: source.admin })]);
        expect(fromA.status, url).toBe(200);
        expect(fromB.status, url).toBe(200);
        expect(fromB.body, url).toEqual(fromA.body);
        expect(fromB.headers.get('link'), url).toBe(fromA.headers.get('link'));
        expect(fromB.headers.get('x-total-count'), url).toBe(fromA.headers.get('x-total-count'));
      }
      // Key pairs alike, but for when each server last verified the admin's (its own use, as it should).
      const keys = async (server: RunningServer) =>
        (await call(server, 'GET', '/api_keys', { as: source.admin })).body.items.map(({ last_used_at, ...key }: Record<string, unknown>) => key);
      expect(await keys(b)).toEqual(await keys(a));
      // A cursor made by one server walks the other's copy alike.
      const first = await call(a, 'GET', '/pages?per_page=100', { as: source.admin });
      const next = /<\/public-api\/v1([^>]+)>/.exec(first.headers.get('link') ?? '')![1]!;
      const [nextA, nextB] = await Promise.all([call(a, 'GET', next, { as: source.admin }), call(b, 'GET', next, { as: source.admin })]);
      expect(nextB.body).toEqual(nextA.body);
      expect(nextA.body.items).toHaveLength(100);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('leaves the copy counting: a row written after it moves its kept totals (PostgreSQL loads with them set aside)', async () => {
    const raw = await openRaw(copyDb);
    try {
      const count = async (key: string) => Number((await raw.all<{ n: number }>('select n from list_counts where key = ?', [key]))[0]?.n ?? 0);
      const [configs, owner] = [await count('page_configurations|'), (await raw.all<{ id: string }>("select id from users where nickname = 'ada'"))[0]!.id];
      const pages = await count(`pages|*|${owner}|*`);
      const [config] = await raw.all<{ id: string }>('select id from page_configurations limit 1');
      const at = new Date().toISOString();
      await raw.all('insert into page_configurations (id, name, created_at, updated_at) values (?, ?, ?, ?)', [newId(), 'After the copy', at, at]);
      await raw.all(
        'insert into pages (id, name, slug, privacy, page_configuration_id, user_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
        [newId(), 'After the copy', `after-the-copy-${newId()}`, 'public', config!.id, owner, at, at],
      );
      expect(await count('page_configurations|')).toBe(configs + 1);
      expect(await count(`pages|*|${owner}|*`)).toBe(pages + 1);
      if (onPostgres)
        expect(await raw.all("select tgname from pg_trigger where tgrelid::regclass::text in ('pages', 'follows', 'events') and tgenabled <> 'O'")).toEqual([]);
    } finally {
      await raw.close();
    }
  });

  it('refuses a destination that is not empty, and leaves it as it was', async () => {
    const before = (await rowsOf(copyDb, 'pages', ['id'])).length;
    const again = await copyCli(sourceDb, copyDb);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: the destination is not empty \(table \w+ has rows\)/);
    expect(await rowsOf(copyDb, 'pages', ['id'])).toHaveLength(before);
  });

  it('refuses the same store on both sides, and a source that does not exist', async () => {
    const same = await runCli(['admin', 'copy', '--from', sourceDb, '--to', sourceDb], { home: source.dir });
    expect(same.code).toBe(2);
    const missing = await runCli(['admin', 'copy', '--from', join(source.dir, 'nope.db'), '--to', join(source.dir, 'other.db')], { home: source.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no store at');
  });
});
