import { describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { insertPage, useApp } from '../helpers/app.js';

/**
 * A read outside the store's transactions sees committed data only, whichever connection answers it (SQLite:
 * the writing connection while it has no transaction open, the read-only one while it has; `CommittedReads`),
 * and sees a commit at once. On PostgreSQL the reads take a connection of their own from the pool.
 */
const t = useApp();

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
      await insertPage(tx, { id, config: res.body.id as string, owner: t.admin.id });
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

describe('reads while a write of ours is open', () => {
  it('are answered at once, from the read-only connection, without what it wrote: a list of one walk and of several', async () => {
    // A Member's waiting requests are two walks (their own, and those to the page they created), read in a
    // snapshot; the pages list is one walk, its texts kept or read by id.
    const m = await t.member();
    const other = await t.member();
    const config = await t.call('POST', '/page_configurations', { body: { name: `Held ${newId()}` } });
    const pageOf = async (as: typeof m) =>
      (
        await t.call('POST', '/pages', {
          as: as.creds,
          body: { name: `Page ${newId()}`, privacy: 'public', page_configuration_id: config.body.id, user_id: as.user.id },
        })
      ).body.id as string;
    const mine = await pageOf(m);
    const theirs = await pageOf(other);
    expect((await t.call('POST', '/page_access_requests', { as: other.creds, body: { page_id: mine, user_id: other.user.id } })).status).toBe(201);
    expect((await t.call('POST', '/page_access_requests', { as: m.creds, body: { page_id: theirs, user_id: m.user.id } })).status).toBe(201);
    const urls = ['/page_access_requests?state=waiting&per_page=1', '/page_access_requests?state=waiting', '/pages?per_page=2', '/pages?per_page=2&page=2'];
    const ask = async () => {
      const answers: string[] = [];
      for (const url of urls) {
        const res = await t.app.inject({ method: 'GET', url: `/public-api/v1${url}`, headers: { 'api-key': m.creds.key, 'api-secret': m.creds.secret } });
        expect(res.statusCode, res.body).toBe(200);
        answers.push(res.body);
      }
      return answers;
    };
    const before = await ask();
    // Twice more: from the second use on, a list's fetch is compiled and its texts are kept.
    expect(await ask()).toEqual(before);
    // A transaction of ours that waits (its group takes the write lock on the next turns of the loop).
    let release = () => {};
    let opened = false;
    const written = newId();
    const held = t.store.transaction(async (tx) => {
      await insertPage(tx, { id: written, config: config.body.id as string, owner: other.user.id });
      opened = true;
      await new Promise<void>((done) => (release = done));
    });
    while (!opened) await new Promise((next) => setImmediate(next));
    try {
      expect(await ask()).toEqual(before);
    } finally {
      release();
      await held;
    }
    // Committed: in the pages list's total now.
    const after = await ask();
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(JSON.parse(after[2]!).total_items).toBe(JSON.parse(before[2]!).total_items + 1);
  });
});
