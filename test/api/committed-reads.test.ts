import { describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { insertPage, useApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/store-target.js';

/**
 * A read outside the store's transactions sees committed data only, and sees a commit at once. SQLite has one
 * connection: a read asked for while a group of transactions holds it is answered once the group has committed.
 * PostgreSQL's reads take a connection of their own from the pool and are answered at once, without the write.
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
    let looked: Promise<void> | undefined;
    await t.store.transaction(async (tx) => {
      await insertPage(tx, { id, config: res.body.id as string, owner: t.admin.id });
      // Inside the transaction, its own write is seen through it…
      expect(await tx.pages.getById(id)).toMatchObject({ id });
      // …and not by the reads outside it, whenever they are answered.
      looked = look();
      if (onPostgres) await looked;
    });
    await looked;
    await look();
    const without = { byId: undefined, byIds: [], total: before.total, listed: before.rows.length };
    const withIt = { byId: { id }, byIds: [{ id }], total: before.total + 1, listed: before.rows.length + 1 };
    // One state or the other, whole: PostgreSQL answers before the commit, SQLite after it.
    if (onPostgres) expect(seen[0]).toEqual(without);
    else expect(seen[0]).toMatchObject(withIt);
    expect(seen[1]).toMatchObject(withIt);
  });
});

describe('reads while a write of ours is open', () => {
  it('are answered without what it wrote until it commits: a list of one walk and of several', async () => {
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
    // Asked again: the same answers.
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
    let during: string[] | undefined;
    const asked = ask().then((answers) => (during = answers));
    try {
      // PostgreSQL answers at once; SQLite's one connection is the write's until it commits.
      if (onPostgres) expect(await asked).toEqual(before);
    } finally {
      release();
      await held;
    }
    await asked;
    // Committed: in the pages list's total now (SQLite: also for the reads asked for while it was open).
    const after = await ask();
    // Each answer whole, from one side of the commit.
    expect(during!.map((answer, i) => [before[i], after[i]].indexOf(answer))).not.toContain(-1);
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(JSON.parse(after[2]!).total_items).toBe(JSON.parse(before[2]!).total_items + 1);
  });
});
