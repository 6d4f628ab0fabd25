import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir } from '../helpers/server.js';

/**
 * A read outside the store's transactions sees committed data only, whichever connection answers it (SQLite:
 * the writing connection while it has no transaction open, the read-only one while it has; `CommittedReads`),
 * and sees a commit at once. On PostgreSQL the reads take a connection of their own from the pool.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

describe('reads outside a transaction', () => {
  it('do not see a transaction still open, and see it once committed', async () => {
    const res = await t.call('POST', '/page_configurations', { body: { name: `Config ${newId()}` } });
    expect(res.status).toBe(201);
    const admin = { id: t.admin.id, isAdmin: true };
    const all = () => t.store.pages.list({}, admin, { page: 1, per_page: 25 });
    const before = await all();
    const id = newId();
    const seen: { byId?: unknown; byIds?: unknown[]; total?: number; listed?: number }[] = [];
    const look = async () => {
      const listed = await all();
      seen.push({
        byId: await t.store.pages.getById(id),
        byIds: await t.store.pages.getByIds([id]),
        total: listed.total,
        listed: listed.rows.length,
      });
    };
    await t.store.transaction(async (tx) => {
      const now = new Date().toISOString();
      await tx.pages.insert({
        id,
        name: `Open ${id}`,
        slug: `open-${id}`,
        description: null,
        privacy: 'public',
        page_configuration_id: res.body.id as string,
        user_id: t.admin.id,
        created_at: now,
        updated_at: now,
      });
      // Inside the transaction, its own write is seen through it…
      expect(await tx.pages.getById(id)).toMatchObject({ id });
      // …and not by the reads outside it.
      await look();
    });
    await look();
    expect(seen[0]).toEqual({ byId: undefined, byIds: [], total: before.total, listed: before.rows.length });
    expect(seen[1]).toMatchObject({ byId: { id }, byIds: [{ id }], total: before.total + 1, listed: before.rows.length + 1 });
  });
});
