import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { insertPage, startApp, type TestApp } from '../helpers/app.js';
import { removeDir } from '../helpers/server.js';
import { afterAccessChange, onPostgres, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * A write by another connection to the same store (another worker or process) is in the very next answer of
 * a list, its page numbers and its total; what a caller may see moves with it.
 */
let t: TestApp;
let other: Store;
beforeAll(async () => {
  t = await startApp();
  other = await openStore(t.file, onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
});
afterAll(async () => {
  await other.close();
  await t.close();
  removeDir(t.dir);
});

const configId = async () => {
  const res = await t.call('POST', '/page_configurations', { body: { name: `Config ${newId()}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
};

/** A page written straight through the other connection, with the id given (its place in the list). */
const pageByOther = (id: string, config: string, privacy: 'public' | 'secret' = 'public') =>
  other.transaction((tx) => insertPage(tx, { id, config, owner: t.admin.id, privacy }));

describe('lists after writes by another connection', () => {
  it('answer the same page after follows, and the moved page after pages written by another connection', async () => {
    const config = await configId();
    for (let i = 0; i < 12; i++) {
      const res = await t.call('POST', '/pages', { body: { name: `Listed ${i}`, page_configuration_id: config, privacy: 'public', user_id: t.admin.id } });
      expect(res.status).toBe(201);
    }
    const list = `/pages?page_configuration_id=${config}&per_page=3`;
    const all = async () => (await t.call('GET', `${list.replace('per_page=3', 'per_page=100')}`)).body.items.map((p: { id: string }) => p.id);
    const page3 = async () => {
      const res = await t.call('GET', `${list}&page=3`);
      expect(res.status).toBe(200);
      return { ids: res.body.items.map((p: { id: string }) => p.id), total: res.body.total_items };
    };
    const first = await page3();
    expect(first).toEqual({ ids: (await all()).slice(6, 9), total: 12 });

    expect(await page3()).toEqual(first);

    // Follows, by this server and by the other connection: the pages list is as it was.
    const { user } = await t.member();
    const followed = await t.member();
    expect((await t.call('POST', '/follows', { body: { user_id: user.id, followable_type: 'User', followable_id: followed.user.id } })).status).toBe(201);
    await other.transaction((tx) =>
      tx.follows.insertIfAbsent({ id: newId(), user_id: followed.user.id, followable_type: 'User', followable_id: user.id, created_at: new Date().toISOString() }),
    );
    expect(await page3()).toEqual(first);

    // A page before all of them (whichever way the list is ordered), written by the other connection: every
    // position moves by one, and the total.
    await pageByOther(`00000000${newId().slice(8)}`, config);
    await pageByOther(`ffffffff${newId().slice(8)}`, config);
    const now = await all();
    expect(now).toHaveLength(14);
    expect(await page3()).toEqual({ ids: now.slice(6, 9), total: 14 });
    expect((await page3()).ids[0]).not.toBe(first.ids[0]);
  });

  it("a Member's list shows a secret page as soon as another connection adds the Member to it", async () => {
    const config = await configId();
    const { user, creds } = await t.member();
    const secret = newId();
    await pageByOther(secret, config, 'secret');
    const listed = async () =>
      (await t.call('GET', `/pages?page_configuration_id=${config}`, { as: creds })).body as { items: { id: string }[]; total_items: number };
    expect(await listed()).toMatchObject({ items: [], total_items: 0 });
    await other.transaction((tx) =>
      tx.follows.insertIfAbsent({ id: newId(), user_id: user.id, followable_type: 'Page', followable_id: secret, created_at: new Date().toISOString() }),
    );
    const after = await listed();
    expect(after.items.map((p) => p.id)).toEqual([secret]);
    expect(after.total_items).toBe(1);
  });

  it("a user's notifications show what another connection wrote of their contents and counters at once", async () => {
    const reader = await t.member();
    const fan = await t.member();
    const follow = await t.call('POST', '/follows', { as: fan.creds, body: { user_id: fan.user.id, followable_type: 'User', followable_id: reader.user.id } });
    expect(follow.status).toBe(201);
    await t.app.fanOut.drain();
    const listed = async () => {
      const res = await t.call('GET', `/users/${reader.user.id}/notifications`, { as: reader.creds });
      expect(res.status).toBe(200);
      return { names: (res.body as { subject_name: string }[]).map((n) => n.subject_name), total: res.headers['x-total-count'] };
    };
    const first = await listed();
    expect(first.names).toHaveLength(1);
    expect(first.total).toBe('1');
    // Asked again: the contents and the counts are remembered (SQLite).
    expect(await listed()).toEqual(first);
    const [n] = (await t.call('GET', `/users/${reader.user.id}/notifications`, { as: reader.creds })).body as { id: string }[];
    const { content_id } = await other.db.selectFrom('notifications').select('content_id').where('id', '=', n!.id).executeTakeFirstOrThrow();
    // Another connection renames what the notification says, and moves the counter: both in the next answer.
    await other.transaction((tx) => tx.db.updateTable('notification_contents').set({ subject_name: 'Renamed' }).where('id', '=', content_id).execute());
    expect(await listed()).toEqual({ names: ['Renamed'], total: '1' });
    await other.transaction((tx) => tx.db.updateTable('notification_counters').set({ total: 7 }).where('user_id', '=', reader.user.id).execute());
    expect(await listed()).toEqual({ names: ['Renamed'], total: '7' });
  });

  it('a role changed by another connection applies to the next call of a remembered caller', async () => {
    const { user, creds } = await t.member();
    expect((await t.call('GET', '/webhooks', { as: creds })).status).toBe(403);
    const admins = await other.db.selectFrom('permission_sets').select('id').where('system_key', '=', 'admins').executeTakeFirstOrThrow();
    await other.transaction((tx) => tx.users.setRole(user.id, admins.id, new Date().toISOString()));
    // A cache that ignored the change would answer 403 to the end.
    expect((await afterAccessChange(() => t.call('GET', '/webhooks', { as: creds }), (res) => res.status === 200)).status).toBe(200);
  });
});

describe('the table versions themselves [SQLite]', () => {
  it.skipIf(onPostgres)('are bumped by triggers on every versioned table, for inserts, updates and deletes', async () => {
    // A migration that rebuilt a table (create, copy, rename) would drop its triggers without a word, and what
    // is kept by its version (the embedded users and pages, a list's positions) would never be retired again.
    const { default: Database } = await import('better-sqlite3');
    const raw = new Database(t.file, { readonly: true });
    try {
      const names = raw.prepare('select name from table_versions order by name').pluck().all() as string[];
      const versioned = names.filter((name) => !name.startsWith('records:'));
      // The versions of the records kept by id (migrations 0017 and 0019), bumped by their updates and deletes.
      const kept = ['events', 'follows', 'invites', 'page_access_requests'];
      expect(names.filter((name) => name.startsWith('records:'))).toEqual(kept.map((table) => `records:${table}`));
      expect(versioned).toEqual(expect.arrayContaining(['pages', 'permission_sets', 'users', 'follows', 'invites', 'page_access_requests']));
      const triggers = new Set(raw.prepare(`select name from sqlite_master where type = 'trigger'`).pluck().all() as string[]);
      const missing = versioned.flatMap((table) =>
        ['insert', 'update', 'delete'].map((event) => `${table}_version_${event}`).filter((name) => !triggers.has(name)),
      );
      expect(missing).toEqual([]);
      const records = kept.flatMap((table) =>
        ['update', 'delete', 'replace'].map((event) => `${table}_records_version_${event}`).filter((name) => !triggers.has(name)),
      );
      expect(records).toEqual([]);
      // And every table but the versions, the kept counts and the migrator's own has a version.
      const tables = raw.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[];
      const unversioned = tables.filter((name) => !versioned.includes(name)).sort();
      expect(unversioned).toEqual(['kysely_migration', 'kysely_migration_lock', 'list_counts', 'table_versions']);
    } finally {
      raw.close();
    }
  });
});
