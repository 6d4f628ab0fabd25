import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/**
 * A comment or a like is told to the author of what it is on while they read it: one who left the private or
 * secret page their status (or comment) is in may no longer read what is said there, and is not told it either.
 */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials | undefined };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Told clubs' } })).body.id;
});

const told = async (who: Who, type: string) =>
  ((await t.ok('GET', `/users/${who.user.id}/notifications`)) as { notification_type: string }[]).filter((n) => n.notification_type === type).length;
const join = (who: Who, pageId: string) => t.ok('POST', '/follows', undefined, { user_id: who.user.id, followable_type: 'Page', followable_id: pageId });
async function leave(who: Who, pageId: string) {
  const follow = (await t.ok('GET', `/follows?user_id=${who.user.id}&followable_type=Page&followable_id=${pageId}`)).items[0];
  expect((await t.call('DELETE', `/follows/${follow.id}`)).status).toBe(204);
}

describe('comments and likes on content in a closed page', () => {
  it.each(['private', 'secret'])('tell its author while they are in the %s page, not once they left it', async (privacy) => {
    const [owner, author, other] = [await t.member(), await t.member(), await t.member()];
    const pageId = (await t.ok('POST', '/pages', undefined, { name: `${privacy} told`, privacy, page_configuration_id: configId, user_id: owner.user.id })).id;
    for (const who of [author, other]) await join(who, pageId);
    const status = await t.ok('POST', '/statuses', author, { user_id: author.user.id, page_id: pageId, content: 'Seeds to share' });
    const comment = await t.ok('POST', '/comments', author, { user_id: author.user.id, status_id: status.id, content: 'Mostly beans' });
    await t.ok('POST', '/comments', other, { user_id: other.user.id, status_id: status.id, content: 'I will take some' });
    await t.ok('POST', '/likes', other, { user_id: other.user.id, status_id: status.id });
    expect([await told(author, 'comment'), await told(author, 'like')]).toEqual([1, 1]);

    await leave(author, pageId);
    expect((await t.call('GET', `/statuses/${status.id}`, { as: author.creds })).status).toBe(privacy === 'secret' ? 404 : 403);
    await t.ok('POST', '/comments', other, { user_id: other.user.id, status_id: status.id, content: 'Beans, lovely' });
    await t.ok('POST', '/likes', other, { user_id: other.user.id, comment_id: comment.id });
    expect([await told(author, 'comment'), await told(author, 'like')]).toEqual([1, 1]);
    // The page's creator still reads it without following it, and is still told.
    await leave(owner, pageId);
    const owners = await t.ok('POST', '/statuses', owner, { user_id: owner.user.id, page_id: pageId, content: 'House rules' });
    await t.ok('POST', '/likes', other, { user_id: other.user.id, status_id: owners.id });
    expect(await told(owner, 'like')).toBe(1);
  });
});
