import { describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import type { Store } from '../../src/store/store.js';
import { useApp } from '../helpers/app.js';

/**
 * `Store.watchNotifications` for this process's writes: the users a transaction notified are told once it
 * committed, never before and never for a transaction rolled back (alone, or beside others in SQLite's group).
 */
const t = useApp();

/** Notifies `userId` of a made-up follow inside `tx`. */
async function notify(tx: Store, userId: string): Promise<void> {
  const contentId = newId();
  const now = new Date().toISOString();
  await tx.notifications.insertContent({
    id: contentId, notification_type: 'follow', action_name: 'followed', subject_type: 'User', subject_id: userId,
    subject_slug: null, subject_name: 'Someone', target_type: 'User', target_id: userId, target_slug: null,
    target_name: null, final_target_type: 'User', final_target_id: userId, final_target_slug: null,
    final_target_name: 'Profile', link_type: 'User', link_id: userId, link_slug: null, picture_url: null,
    comment_info: '{}', created_at: now,
  });
  await tx.notifications.insertFor(contentId, [{ userId, id: newId() }], now);
}

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
