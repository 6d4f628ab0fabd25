import { describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { Store } from '../../src/store/store.js';
import { notifyMadeUp, seedMembers, useApp } from '../helpers/app.js';
import { onPostgres, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * `Store.watchNotifications` for this process's writes: the users a transaction notified are told once it
 * committed, never before and never for a transaction rolled back (alone, or beside others in SQLite's group).
 */
const t = useApp();

/** Notifies `userId` (and `others`, in the same statement) of a made-up follow inside `tx`; answers the content's id. */
const notify = (tx: Store, userId: string, others: string[] = []): Promise<string> =>
  notifyMadeUp(tx, userId, [userId, ...others].map((id) => ({ userId: id, id: newId() })));

describe('Store.watchNotifications', () => {
  it('tells the users notified once their transaction committed, and nobody for one rolled back', async () => {
    const [kept, lost] = [await t.member(), await t.member()];
    const told: string[] = [];
    const stop = t.store.watchNotifications((ids) => told.push(...(ids ?? ['(anyone)'])));
    try {
      let toldInside: string[] | undefined;
      // Started together: on SQLite they share one group, the failing one rolled back to its savepoint alone.
      const results = await Promise.allSettled([
        t.store.transaction(async (tx) => {
          await notify(tx, kept.user.id);
          toldInside = [...told];
        }),
        t.store.transaction(async (tx) => {
          await notify(tx, lost.user.id);
          throw new Error('rolled back');
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
      expect(toldInside).toEqual([]);
      expect(told.filter((id) => id !== '(anyone)')).toEqual([kept.user.id]);
      expect((await t.call('GET', `/users/${lost.user.id}/notifications`, { as: lost.creds })).body).toEqual([]);
    } finally {
      stop();
    }
  });
});

describe.skipIf(!onPostgres)('another store on the same PostgreSQL database [runs with AGORA_TEST_DB]', () => {
  it("is told whose notifications were committed here (every one of 450 added at once), once each, never a rolled back one's nor one already there; this store is told its own once", async () => {
    const other = await openPostgresStore(t.file, { secretKey: TEST_SECRET_KEY });
    const toldThere: string[] = [];
    const toldHere: string[] = [];
    const stopThere = other.watchNotifications((ids) => ids && toldThere.push(...ids));
    const stopHere = t.store.watchNotifications((ids) => ids && toldHere.push(...ids));
    try {
      const many = await seedMembers(t.store, 450);
      const [lost, again, marker] = [await t.member(), await t.member(), await t.member()];
      // Both listening (their first answer is "anyone": undefined, left out above) before anything is written.
      await vi.waitFor(() => expect([other.versionOf(['users']), t.store.versionOf(['users'])]).not.toContain(undefined), { timeout: 10_000 });
      await t.store.transaction(async (tx) => void (await notify(tx, many[0]!, many.slice(1))));
      await t.store
        .transaction(async (tx) => {
          await notify(tx, lost.user.id);
          throw new Error('rolled back');
        })
        .catch(() => {});
      // A notification given twice (a fan-out batch run again): the second insert adds no row, and tells no one.
      const given = await t.store.transaction((tx) => notify(tx, again.user.id));
      expect(await t.store.transaction((tx) => tx.notifications.insertFor(given, [{ userId: again.user.id, id: newId() }], new Date().toISOString()))).toEqual([]);
      // Written by the other store last: once each has heard it, each has heard everything committed before it.
      await other.transaction(async (tx) => void (await notify(tx, marker.user.id)));
      await vi.waitFor(() => expect([toldHere.includes(marker.user.id), toldThere.includes(marker.user.id)]).toEqual([true, true]), { timeout: 10_000 });
      const expected = [...many, again.user.id, marker.user.id].sort();
      expect([...toldThere].sort()).toEqual(expected);
      expect([...toldHere].sort()).toEqual(expected);
    } finally {
      stopThere();
      stopHere();
      await other.close();
    }
  });
});
