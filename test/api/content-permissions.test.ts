import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/**
 * The `statuses` permissions of a role (docs/api.md, "Roles"): `create` to post a status, a comment or a like,
 * `destroy` to take back one's own, `show` and `index` to read one or a list. A page's administrators and the Admins
 * remove others' content by the moderation rule, whatever their role grants.
 */
const t = useApp();
type Who = { user: { id: string; nickname: string }; creds: Credentials };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Content permissions' } })).body.id;
});

/** A role of these `statuses` actions (and `users.can_use_api`), given to a new user with a key. */
async function holderOf(statuses: Record<string, boolean>): Promise<Who & { roleId: string }> {
  const role = await t.ok('POST', '/permission_sets', undefined, {
    name: `Role ${Math.random().toString(16).slice(2, 10)}`,
    permissions: { users: { can_use_api: true }, statuses },
  });
  const who = await t.member();
  await t.ok('PUT', `/users/${who.user.id}/role`, undefined, { permission_set_id: role.id });
  return { ...who, roleId: role.id };
}
const READ = { index: true, show: true };
const EVERYDAY = { ...READ, create: true, edit: true, destroy: true };

const post = (who: Who, body: Record<string, unknown> = {}, as: Credentials | undefined = who.creds) =>
  t.call('POST', '/statuses', { as, body: { user_id: who.user.id, content: 'A status', ...body } });
const comment = (who: Who, statusId: string, as: Credentials | undefined = who.creds) =>
  t.call('POST', '/comments', { as, body: { user_id: who.user.id, status_id: statusId, content: 'A comment' } });
const like = (who: Who, statusId: string, as: Credentials | undefined = who.creds) =>
  t.call('POST', '/likes', { as, body: { user_id: who.user.id, status_id: statusId } });
const created = (res: { status: number; body: { id: string } }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
};
const refused = (res: { status: number; body: { error: { code: string; message: string } } }, message: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.error).toMatchObject({ code: 'forbidden', message });
};
const NO_CREATE = 'Your role does not grant the permission statuses.create';
const NO_DESTROY = 'Your role does not grant the permission statuses.destroy';

/** What a status has had written about it, as the Admin reads it. */
const writtenOn = async (statusId: string) => {
  const status = (await t.call('GET', `/statuses/${statusId}`)).body;
  const comments = (await t.call('GET', `/statuses/${statusId}/comments`)).body.total_items;
  const likes = (await t.call('GET', `/statuses/${statusId}/likes`)).body.total_items;
  return { comments_count: status.comments_count, likes_count: status.likes_count, comments, likes };
};
const statusesBy = async (who: Who) => (await t.call('GET', `/statuses?user_id=${who.user.id}`)).body.total_items;

describe('statuses.create', () => {
  it('refuses a role of reads only posting, commenting and liking (403), and writes nothing; a Member does all three', async () => {
    const [author, member] = [await t.member(), await t.member()];
    const reader = await holderOf(READ);
    const status = created(await post(author));

    refused(await post(reader), NO_CREATE);
    refused(await comment(reader, status), NO_CREATE);
    refused(await like(reader, status), NO_CREATE);
    expect(await statusesBy(reader)).toBe(0);
    expect(await writtenOn(status)).toEqual({ comments_count: 0, likes_count: 0, comments: 0, likes: 0 });

    created(await post(member));
    created(await comment(member, status));
    created(await like(member, status));
    expect(await statusesBy(member)).toBe(1);
    expect(await writtenOn(status)).toEqual({ comments_count: 1, likes_count: 1, comments: 1, likes: 1 });
  });

  it("refuses an Admin posting for a Visitor: the author's role counts, and the message names it", async () => {
    const author = await t.member();
    const visitor = await t.member();
    const visitors = (await t.call('GET', '/permission_sets?name=Visitors')).body.items[0];
    await t.ok('PUT', `/users/${visitor.user.id}/role`, undefined, { permission_set_id: visitors.id });
    const status = created(await post(author));

    const theirs = `The role of ${visitor.user.nickname} does not grant the permission statuses.create`;
    refused(await post(visitor, {}, t.admin), theirs);
    refused(await comment(visitor, status, t.admin), theirs);
    refused(await like(visitor, status, t.admin), theirs);
    expect(await statusesBy(visitor)).toBe(0);
    expect(await writtenOn(status)).toEqual({ comments_count: 0, likes_count: 0, comments: 0, likes: 0 });
    // For a Member the Admin posts as before.
    created(await post(author, {}, t.admin));
  });

  it('refuses the holder of a role an Admin unticks statuses.create on, and lets them post again once it is ticked', async () => {
    const author = await t.member();
    const holder = await holderOf(EVERYDAY);
    const status = created(await post(author));
    const own = created(await post(holder));

    await t.ok('PUT', `/permission_sets/${holder.roleId}`, undefined, { permissions: { statuses: { create: false } } });
    refused(await post(holder), NO_CREATE);
    refused(await comment(holder, status), NO_CREATE);
    refused(await like(holder, status), NO_CREATE);
    expect(await statusesBy(holder)).toBe(1);
    expect(await writtenOn(status)).toEqual({ comments_count: 0, likes_count: 0, comments: 0, likes: 0 });
    // Silenced, not shut out: what they may still do, they do.
    expect((await t.call('GET', `/statuses/${status}`, { as: holder.creds })).status).toBe(200);
    expect((await t.call('DELETE', `/statuses/${own}`, { as: holder.creds })).status).toBe(204);

    await t.ok('PUT', `/permission_sets/${holder.roleId}`, undefined, { permissions: { statuses: { create: true } } });
    created(await post(holder));
  });
});

describe('statuses.destroy', () => {
  it("refuses taking back one's own status, comment or like without it; the page's creator and the Admins still remove them", async () => {
    // The page's creator lacks it too: they remove what is in their page as its moderator, whatever their role grants.
    const owner = await holderOf({ ...READ, create: true });
    const poster = await holderOf({ ...READ, create: true });
    const page = await t.ok('POST', '/pages', owner, { name: 'Kept garden', privacy: 'public', page_configuration_id: configId, user_id: owner.user.id });
    await t.ok('POST', '/follows', poster, { followable_type: 'Page', followable_id: page.id, user_id: poster.user.id });
    const status = created(await post(poster, { page_id: page.id }));
    const ownersStatus = created(await post(owner, { page_id: page.id }));
    const remark = created(await comment(poster, ownersStatus));
    const liked = created(await like(poster, ownersStatus));

    refused(await t.call('DELETE', `/statuses/${status}`, { as: poster.creds }), NO_DESTROY);
    refused(await t.call('DELETE', `/comments/${remark}`, { as: poster.creds }), NO_DESTROY);
    refused(await t.call('DELETE', `/likes/${liked}`, { as: poster.creds }), NO_DESTROY);
    expect(await writtenOn(ownersStatus)).toEqual({ comments_count: 1, likes_count: 1, comments: 1, likes: 1 });
    // Nor through a report on it (their own: the author sees no other unless they administer the page), which its
    // author settles only by removing what was reported.
    const report = await t.ok('POST', '/reports', poster, { user_id: poster.user.id, target_type: 'Status', target_id: status, reason: 'other' });
    refused(await t.call('PUT', `/reports/${report.id}/resolve`, { as: poster.creds, body: { action: 'remove' } }), NO_DESTROY);
    expect((await t.call('GET', `/statuses/${status}`, { as: poster.creds })).status).toBe(200);

    expect((await t.call('DELETE', `/statuses/${status}`, { as: owner.creds })).status).toBe(204);
    expect((await t.call('DELETE', `/comments/${remark}`, { as: owner.creds })).status).toBe(204);
    expect((await t.call('DELETE', `/likes/${liked}`)).status).toBe(204);
    expect(await writtenOn(ownersStatus)).toEqual({ comments_count: 0, likes_count: 0, comments: 0, likes: 0 });
    expect((await t.call('GET', `/statuses/${status}`, { as: poster.creds })).status).toBe(404);
    // Their own status in their own page, too: the moderation rule, not `statuses.destroy`.
    expect((await t.call('DELETE', `/statuses/${ownersStatus}`, { as: owner.creds })).status).toBe(204);
  });
});

describe('statuses.show and statuses.index', () => {
  it('refuses every read of statuses, comments and likes to a role without them, one record to a role of index only', async () => {
    const author = await t.member();
    const status = created(await post(author));
    const remark = created(await comment(author, status));
    const liked = created(await like(author, status));
    const one = [`/statuses/${status}`, `/comments/${remark}`, `/likes/${liked}`];
    const lists = (who: Who) => [
      '/statuses',
      `/statuses/${status}/comments`,
      `/statuses/${status}/likes`,
      `/comments/${remark}/likes`,
      `/users/${who.user.id}/stream`,
    ];

    const blind = await holderOf({});
    for (const path of one) refused(await t.call('GET', path, { as: blind.creds }), 'Your role does not grant the permission statuses.show');
    for (const path of lists(blind)) refused(await t.call('GET', path, { as: blind.creds }), 'Your role does not grant the permission statuses.index');

    const lister = await holderOf({ index: true });
    for (const path of one) refused(await t.call('GET', path, { as: lister.creds }), 'Your role does not grant the permission statuses.show');
    for (const path of lists(lister)) expect((await t.call('GET', path, { as: lister.creds })).status, path).toBe(200);

    const member = await t.member();
    for (const path of [...one, ...lists(member)]) expect((await t.call('GET', path, { as: member.creds })).status, path).toBe(200);
  });

  it('leave a role without them what is its own: its notifications quote the content, and it reports what it is told of', async () => {
    const author = await t.member();
    const blind = await holderOf({});
    await t.ok('POST', '/follows', blind, { followable_type: 'User', followable_id: author.user.id, user_id: blind.user.id });
    const status = created(await post(author, { content: 'Words for my followers' }));
    refused(await t.call('GET', `/statuses/${status}`, { as: blind.creds }), 'Your role does not grant the permission statuses.show');
    await t.app.fanOut.drain();
    const told = (await t.call('GET', `/users/${blind.user.id}/notifications`, { as: blind.creds })).body as Record<string, unknown>[];
    expect(told.filter((n) => n.notification_type === 'status')).toEqual([
      expect.objectContaining({ target_id: status, target_name: 'Words for my followers' }),
    ]);
    const report = await t.ok('POST', '/reports', blind, { user_id: blind.user.id, target_type: 'Status', target_id: status, reason: 'spam' });
    expect(report.target).toMatchObject({ type: 'Status', id: status, excerpt: 'Words for my followers' });
  });
});
