import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/**
 * Removed content vanishes for everyone (docs/api.md, "Moderating content and people"), notifications included: those that quoted it (a status
 * announced to followers, a comment, a like) stop quoting it; the author's own `content_removed` still names it.
 */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials };
interface Told {
  notification_type: string;
  target_id: string | null;
  target_name: string | null;
  comment_info: Record<string, unknown>;
}

const ok = (method: string, path: string, as?: Who, body?: Record<string, unknown>) => t.ok<{ id: string }>(method, path, as, body);
const notificationsOf = async (who: Who) => {
  await t.app.fanOut.drain();
  return (await t.call('GET', `/users/${who.user.id}/notifications?per_page=100`, { as: who.creds })).body as Told[];
};
const quoting = (told: Told[], text: string) => told.filter((n) => JSON.stringify(n).includes(text));

/** Ada's status, announced to her follower Bob; Carol's comment on it (Ada told); likes of both (each author told). */
async function scene() {
  const [ada, bob, carol] = [await t.member(), await t.member(), await t.member()];
  await ok('POST', '/follows', undefined, { followable_type: 'User', followable_id: ada.user.id, user_id: bob.user.id });
  const status = await ok('POST', '/statuses', ada, { user_id: ada.user.id, content: 'miracle seeds, cheap' });
  const comment = await ok('POST', '/comments', carol, { user_id: carol.user.id, status_id: status.id, content: 'where to buy them' });
  await ok('POST', '/likes', bob, { user_id: bob.user.id, status_id: status.id });
  await ok('POST', '/likes', bob, { user_id: bob.user.id, comment_id: comment.id });
  return { ada, bob, carol, status, comment };
}

describe('notifications of removed content', () => {
  it('stop quoting a removed status and its comments, for everyone; the author is still told what was removed', async () => {
    const { ada, bob, carol, status } = await scene();
    expect(quoting(await notificationsOf(bob), 'miracle seeds')).toHaveLength(1);
    expect(quoting(await notificationsOf(ada), 'where to buy').length).toBeGreaterThan(0);
    expect(quoting(await notificationsOf(carol), 'where to buy')).toHaveLength(1);

    await ok('DELETE', `/statuses/${status.id}`, undefined);
    const bobs = await notificationsOf(bob);
    expect(quoting(bobs, 'miracle seeds')).toEqual([]);
    expect(bobs.find((n) => n.notification_type === 'status')).toMatchObject({ target_id: status.id, target_name: null });
    const adas = await notificationsOf(ada);
    expect(quoting(adas, 'where to buy')).toEqual([]);
    expect(quoting(adas, 'miracle seeds').map((n) => n.notification_type)).toEqual(['content_removed']);
    expect(quoting(await notificationsOf(carol), 'where to buy')).toEqual([]);
  });

  it('stop quoting a removed comment, and only it', async () => {
    const { ada, bob, carol, comment } = await scene();
    await ok('DELETE', `/comments/${comment.id}`, undefined);
    expect(quoting(await notificationsOf(ada), 'where to buy')).toEqual([]);
    const carols = await notificationsOf(carol);
    expect(quoting(carols, 'where to buy').map((n) => n.notification_type)).toEqual(['content_removed']);
    expect(carols.find((n) => n.notification_type === 'like')).toMatchObject({ target_id: comment.id, target_name: null, comment_info: {} });
    expect(quoting(await notificationsOf(bob), 'miracle seeds')).toHaveLength(1);
  });
});
