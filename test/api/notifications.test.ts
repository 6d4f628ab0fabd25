import { beforeAll, describe, expect, it } from 'vitest';
import { toNotificationRecords } from '../../src/domain/notifications.js';
import { useApp } from '../helpers/app.js';
import { HEX_ID, ISO } from '../helpers/api.js';
import type { Credentials } from '../helpers/server.js';

/**
 * Every trigger of docs/api.md, each in its own test: the notification(s) it makes, with every field of the
 * spec's table, and never one for whoever acted.
 */

const t = useApp();

type Who = { user: { id: string; nickname: string; slug: string }; creds: Credentials };
const SPEC_FIELDS = [
  'id',
  'user_id',
  'seen',
  'created_at',
  'updated_at',
  'action_name',
  'link_type',
  'notification_type',
  'subject_name',
  'final_target_name',
  'comment_info',
  'permissions',
  'target_name',
  'picture_url',
  'link_id',
  'subject_id',
  'subject_type',
  'subject_slug',
  'link_slug',
  'target_type',
  'target_id',
  'target_slug',
  'final_target_type',
  'final_target_id',
  'final_target_slug',
].sort();

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Community' } })).body.id;
});

async function notificationsOf(who: Who | { id: string }, query = '') {
  const id = 'user' in who ? who.user.id : who.id;
  const res = await t.call('GET', `/users/${id}/notifications${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return res.body as Record<string, any>[];
}

/** Every notification has every field of the spec's table, with the types it gives. */
function expectWellFormed(n: Record<string, any>) {
  expect(Object.keys(n).sort()).toEqual(SPEC_FIELDS);
  expect(n.id).toMatch(HEX_ID);
  expect(n.created_at).toMatch(ISO);
  expect(n.updated_at).toMatch(ISO);
  expect(typeof n.seen).toBe('boolean');
  expect(typeof n.subject_name).toBe('string');
  expect(typeof n.final_target_name).toBe('string');
  expect(typeof n.comment_info).toBe('object');
  expect(Array.isArray(n.permissions)).toBe(true);
  expect(n.subject_type).toBe('User');
}

const page = async (owner: Who, privacy = 'public', name = `Page ${Math.random()}`) => {
  const res = await t.call('POST', '/pages', {
    as: owner.creds,
    body: { name, privacy, page_configuration_id: configId, user_id: owner.user.id },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string; name: string };
};
const follow = async (who: Who, type: 'Page' | 'User', id: string) => {
  const res = await t.call('POST', '/follows', { as: who.creds, body: { followable_type: type, followable_id: id, user_id: who.user.id } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const post = async (who: Who, body: Record<string, unknown> = {}) => {
  const res = await t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'Hello there', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await t.app.fanOut.drain();
  return res.body as { id: string };
};

describe('the triggers of docs/api.md', () => {
  it('follow (a user): the user followed is told who follows them; the follower is not', async () => {
    const [ada, bob] = [await t.member(), await t.member()];
    await follow(bob, 'User', ada.user.id);
    const [n] = await notificationsOf(ada);
    expectWellFormed(n!);
    expect(n).toMatchObject({
      user_id: ada.user.id,
      seen: false,
      notification_type: 'follow',
      action_name: 'followed',
      subject_id: bob.user.id,
      subject_slug: bob.user.slug,
      target_type: 'User',
      target_id: ada.user.id,
      final_target_type: 'User',
      final_target_id: ada.user.id,
      link_type: 'User',
      link_id: bob.user.id,
      comment_info: {},
      permissions: [],
      picture_url: null,
    });
    expect(n!.subject_name).toMatch(/^Test Member /);
    expect(await notificationsOf(bob)).toEqual([]);
  });

  it('follow (a page): the page creator is told of the new follower', async () => {
    const [owner, fan] = [await t.member(), await t.member()];
    const p = await page(owner, 'public', 'Garden Club');
    await follow(fan, 'Page', p.id);
    const [n] = await notificationsOf(owner);
    expectWellFormed(n!);
    expect(n).toMatchObject({
      notification_type: 'follow',
      subject_id: fan.user.id,
      target_type: 'Page',
      target_id: p.id,
      target_slug: p.slug,
      final_target_name: 'Garden Club',
    });
    expect(await notificationsOf(fan)).toEqual([]);
  });

  it('status (by a followed user): each follower is told; the author is not', async () => {
    const [author, reader] = [await t.member(), await t.member()];
    await follow(reader, 'User', author.user.id);
    const status = await post(author, { content: 'First light over the hills' });
    const [n] = await notificationsOf(reader);
    expectWellFormed(n!);
    expect(n).toMatchObject({
      notification_type: 'status',
      action_name: 'posted',
      subject_id: author.user.id,
      target_type: 'Status',
      target_id: status.id,
      target_name: 'First light over the hills',
      final_target_type: 'User',
      final_target_id: author.user.id,
      link_type: 'Status',
      link_id: status.id,
    });
    expect((await notificationsOf(author)).filter((x) => x.notification_type === 'status')).toEqual([]);
  });

  it('status (in a followed page): its members are told, others are not', async () => {
    const [owner, member, outsider] = [await t.member(), await t.member(), await t.member()];
    const p = await page(owner, 'public', 'Chess Club');
    await follow(member, 'Page', p.id);
    const status = await post(owner, { page_id: p.id });
    const [n] = (await notificationsOf(member)).filter((x) => x.notification_type === 'status');
    expectWellFormed(n!);
    expect(n).toMatchObject({ target_id: status.id, final_target_type: 'Page', final_target_id: p.id, final_target_name: 'Chess Club' });
    expect(await notificationsOf(outsider)).toEqual([]);
    expect((await notificationsOf(owner)).filter((x) => x.notification_type === 'status')).toEqual([]);
  });

  it('status (in an event): those who answered yes and the creator are told', async () => {
    const [creator, going, maybe, poster] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const event = await t.call('POST', '/events', {
      as: creator.creds,
      body: { name: 'Picnic', user_id: creator.user.id, start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T16:00:00Z' },
    });
    for (const [who, answer] of [[going, 'yes'], [maybe, 'maybe'], [poster, 'yes']] as const)
      expect((await t.call('PUT', `/events/${event.body.id}/attendance`, { as: who.creds, body: { user_id: who.user.id, answer } })).status).toBe(200);
    const status = await post(poster, { event_id: event.body.id });
    for (const who of [going, creator]) {
      const [n] = (await notificationsOf(who)).filter((x) => x.notification_type === 'status');
      expectWellFormed(n!);
      expect(n).toMatchObject({ target_id: status.id, final_target_type: 'Event', final_target_id: event.body.id, final_target_name: 'Picnic' });
    }
    expect((await notificationsOf(maybe)).filter((x) => x.notification_type === 'status')).toEqual([]);
    expect((await notificationsOf(poster)).filter((x) => x.notification_type === 'status')).toEqual([]);
  });

  it('comment: the status author is told, with the comment info; a comment on your own status tells nobody', async () => {
    const [author, commenter] = [await t.member(), await t.member()];
    const status = await post(author);
    const comment = await t.call('POST', '/comments', {
      as: commenter.creds,
      body: { user_id: commenter.user.id, status_id: status.id, content: 'Lovely   picture!' },
    });
    expect(comment.status).toBe(201);
    const [n] = await notificationsOf(author);
    expectWellFormed(n!);
    expect(n).toMatchObject({
      notification_type: 'comment',
      action_name: 'commented',
      subject_id: commenter.user.id,
      target_type: 'Comment',
      target_id: comment.body.id,
      link_type: 'Status',
      link_id: status.id,
      comment_info: { id: comment.body.id, excerpt: 'Lovely picture!' },
    });
    await t.call('POST', '/comments', { as: author.creds, body: { user_id: author.user.id, status_id: status.id, content: 'Thanks' } });
    expect(await notificationsOf(author)).toHaveLength(1);
    expect(await notificationsOf(commenter)).toEqual([]);
  });

  it('like (a status): its author is told; liking twice is 409', async () => {
    const [author, fan] = [await t.member(), await t.member()];
    const status = await post(author);
    const like = await t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id } });
    expect(like.status).toBe(201);
    expect(like.body).toMatchObject({ user_id: fan.user.id, status_id: status.id, comment_id: null });
    const [n] = await notificationsOf(author);
    expectWellFormed(n!);
    expect(n).toMatchObject({ notification_type: 'like', action_name: 'liked', subject_id: fan.user.id, target_type: 'Status', target_id: status.id, comment_info: {} });
    const again = await t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_liked');
    expect(await notificationsOf(author)).toHaveLength(1);
    expect((await t.call('GET', `/statuses/${status.id}`)).body.likes_count).toBe(1);
  });

  it('like (a comment): the comment author is told, with the comment info', async () => {
    const [author, commenter, fan] = [await t.member(), await t.member(), await t.member()];
    const status = await post(author);
    const comment = await t.call('POST', '/comments', { as: commenter.creds, body: { user_id: commenter.user.id, status_id: status.id, content: 'Nice' } });
    expect((await t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, comment_id: comment.body.id } })).status).toBe(201);
    const [n] = await notificationsOf(commenter);
    expectWellFormed(n!);
    expect(n).toMatchObject({ notification_type: 'like', target_type: 'Comment', target_id: comment.body.id, comment_info: { id: comment.body.id, excerpt: 'Nice' } });
  });

  it('page_access_request: the page creator and the project administrators are told, with accept and refuse', async () => {
    const [owner, asker] = [await t.member(), await t.member()];
    const p = await page(owner, 'private', 'Book Circle');
    const req = await t.call('POST', '/page_access_requests', { as: asker.creds, body: { page_id: p.id, user_id: asker.user.id } });
    expect(req.status).toBe(201);
    for (const reader of [owner.user.id, t.admin.id]) {
      const [n] = (await notificationsOf({ id: reader })).filter((x) => x.target_id === req.body.id);
      expectWellFormed(n!);
      expect(n).toMatchObject({
        notification_type: 'page_access_request',
        action_name: 'requested',
        subject_id: asker.user.id,
        target_type: 'PageAccessRequest',
        final_target_id: p.id,
        final_target_name: 'Book Circle',
        link_type: 'PageAccessRequest',
        link_id: req.body.id,
        permissions: ['accept', 'refuse'],
      });
    }
    expect(await notificationsOf(asker)).toEqual([]);
    // Once settled, there is nothing left to do with it.
    expect((await t.call('PUT', `/page_access_requests/${req.body.id}/accept`, { as: owner.creds })).status).toBe(200);
    const [after] = (await notificationsOf(owner)).filter((x) => x.target_id === req.body.id);
    expect(after!.permissions).toEqual([]);
  });

  it('page_access_request_accepted: the requester is told; the acceptor is not', async () => {
    const [owner, asker] = [await t.member(), await t.member()];
    const p = await page(owner, 'private');
    const req = await t.call('POST', '/page_access_requests', { as: asker.creds, body: { page_id: p.id, user_id: asker.user.id } });
    await t.call('PUT', `/page_access_requests/${req.body.id}/accept`, { as: owner.creds });
    const [n] = await notificationsOf(asker);
    expectWellFormed(n!);
    expect(n).toMatchObject({
      notification_type: 'page_access_request_accepted',
      action_name: 'accepted',
      subject_id: owner.user.id,
      target_id: req.body.id,
      final_target_id: p.id,
      link_type: 'Page',
      link_id: p.id,
      link_slug: p.slug,
    });
    expect((await notificationsOf(owner)).filter((x) => x.notification_type === 'page_access_request_accepted')).toEqual([]);
  });

  it('invite: the invited user is told', async () => {
    const [owner, guest] = [await t.member(), await t.member()];
    const p = await page(owner, 'secret', 'Board Room');
    const res = await t.call('POST', '/invites', {
      as: owner.creds,
      body: { target_type: 'Page', target_id: p.id, user_id: owner.user.id, user_target_ids: [guest.user.id] },
    });
    const invite = res.body.success[0];
    const [n] = await notificationsOf(guest);
    expectWellFormed(n!);
    expect(n).toMatchObject({
      notification_type: 'invite',
      action_name: 'invited',
      subject_id: owner.user.id,
      target_type: 'Invite',
      target_id: invite.id,
      final_target_name: 'Board Room',
      link_type: 'Invite',
      permissions: [],
    });
    expect((await notificationsOf(owner)).filter((x) => x.notification_type === 'invite')).toEqual([]);
  });

  it('invite_accepted: the invited user and the sender are told; the acceptor is not', async () => {
    const [owner, sender, guest] = [await t.member(), await t.member(), await t.member()];
    const p = await page(owner, 'public');
    await follow(sender, 'Page', p.id);
    const res = await t.call('POST', '/invites', {
      as: sender.creds,
      body: { target_type: 'Page', target_id: p.id, user_id: sender.user.id, user_target_ids: [guest.user.id] },
    });
    expect((await t.call('PUT', `/invites/${res.body.success[0].id}/accept`, { as: owner.creds })).status).toBe(200);
    for (const who of [guest, sender]) {
      const [n] = (await notificationsOf(who)).filter((x) => x.notification_type === 'invite_accepted');
      expectWellFormed(n!);
      expect(n).toMatchObject({ action_name: 'accepted', subject_id: owner.user.id, final_target_id: p.id, link_type: 'Page' });
    }
    expect((await notificationsOf(owner)).filter((x) => x.notification_type === 'invite_accepted')).toEqual([]);
  });

  it('event_attendance: a yes tells the creator; maybe and no do not', async () => {
    const [creator, going, unsure] = [await t.member(), await t.member(), await t.member()];
    const event = await t.call('POST', '/events', {
      as: creator.creds,
      body: { name: 'Book fair', user_id: creator.user.id, start_date: '2026-12-05T09:00:00Z', end_date: '2026-12-05T18:00:00Z' },
    });
    await t.call('PUT', `/events/${event.body.id}/attendance`, { as: unsure.creds, body: { user_id: unsure.user.id, answer: 'maybe' } });
    await t.call('PUT', `/events/${event.body.id}/attendance`, { as: going.creds, body: { user_id: going.user.id, answer: 'yes' } });
    const all = await notificationsOf(creator);
    expect(all).toHaveLength(1);
    expectWellFormed(all[0]!);
    expect(all[0]).toMatchObject({
      notification_type: 'event_attendance',
      action_name: 'answered',
      subject_id: going.user.id,
      target_type: 'Event',
      target_id: event.body.id,
      target_slug: event.body.slug,
      final_target_name: 'Book fair',
      link_type: 'Event',
    });
    // The creator answering their own event tells nobody.
    await t.call('PUT', `/events/${event.body.id}/attendance`, { as: creator.creds, body: { user_id: creator.user.id, answer: 'yes' } });
    expect(await notificationsOf(creator)).toHaveLength(1);
  });
});

describe('GET /users/{id}/notifications and PUT /users/{id}/set_notifications_seen', () => {
  /** A user with `n` notifications: `n` followers, one after the other. */
  async function withNotifications(n: number) {
    const target = await t.member();
    for (let i = 0; i < n; i++) {
      t.clock.advance(1000);
      await follow(await t.member(), 'User', target.user.id);
    }
    return target;
  }

  it('is a bare array, newest first, paged, with the total in X-Total-Count', async () => {
    const target = await withNotifications(3);
    const all = await t.call('GET', `/users/${target.user.id}/notifications`, { as: target.creds });
    expect(all.status).toBe(200);
    expect(all.headers['x-total-count']).toBe('3');
    const times = all.body.map((n: { created_at: string }) => n.created_at);
    expect(times).toEqual([...times].sort().reverse());
    const second = await t.call('GET', `/users/${target.user.id}/notifications?page=2&per_page=2`, { as: target.creds });
    expect(second.body).toHaveLength(1);
    expect(second.body[0].id).toBe(all.body[2].id);
    expect(second.headers['x-total-count']).toBe('3');
    expect((await t.call('GET', `/users/${target.user.id}/notifications?per_page=101`, { as: target.creds })).status).toBe(400);
    expect((await t.call('GET', `/users/${target.user.id}/notifications?status=read`, { as: target.creds })).status).toBe(400);
  });

  it('is empty for a user with none', async () => {
    const nobody = await t.member();
    const res = await t.call('GET', `/users/${nobody.user.id}/notifications`, { as: nobody.creds });
    expect(res.body).toEqual([]);
    expect(res.headers['x-total-count']).toBe('0');
  });

  it('marks every unseen notification seen without ids; status=unseen is then empty', async () => {
    const target = await withNotifications(3);
    const marked = await t.call('PUT', `/users/${target.user.id}/set_notifications_seen`, { as: target.creds });
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ updated: 3 });
    const unseen = await t.call('GET', `/users/${target.user.id}/notifications?status=unseen`, { as: target.creds });
    expect(unseen.body).toEqual([]);
    expect(unseen.headers['x-total-count']).toBe('0');
    const all = await t.call('GET', `/users/${target.user.id}/notifications`, { as: target.creds });
    expect(all.body.every((n: { seen: boolean }) => n.seen)).toBe(true);
    expect(all.headers['x-total-count']).toBe('3');
    // Nothing left to mark.
    expect((await t.call('PUT', `/users/${target.user.id}/set_notifications_seen`, { as: target.creds })).body).toEqual({ updated: 0 });
  });

  it('marks only the ids given; another user’s ids are ignored and stay unseen', async () => {
    const target = await withNotifications(3);
    const other = await withNotifications(1);
    const mine = await notificationsOf(target);
    const theirs = await notificationsOf(other);
    const res = await t.call('PUT', `/users/${target.user.id}/set_notifications_seen`, {
      as: target.creds,
      body: { notification_ids: [mine[0]!.id, theirs[0]!.id, '0'.repeat(32)] },
    });
    expect(res.body).toEqual({ updated: 1 });
    const unseen = await t.call('GET', `/users/${target.user.id}/notifications?status=unseen`, { as: target.creds });
    expect(unseen.body.map((n: { id: string }) => n.id)).toEqual([mine[1]!.id, mine[2]!.id]);
    expect(unseen.headers['x-total-count']).toBe('2');
    expect((await notificationsOf(other))[0]!.seen).toBe(false);
    // An empty list marks nothing.
    expect((await t.call('PUT', `/users/${target.user.id}/set_notifications_seen`, { as: target.creds, body: { notification_ids: [] } })).body).toEqual({ updated: 0 });
  });

  it('is the user’s and the Admins’ only: 403 for anyone else, reading or marking', async () => {
    const target = await withNotifications(1);
    const stranger = await t.member();
    const read = await t.call('GET', `/users/${target.user.id}/notifications`, { as: stranger.creds });
    expect(read.status).toBe(403);
    expect(read.body.error.code).toBe('forbidden');
    const mark = await t.call('PUT', `/users/${target.user.id}/set_notifications_seen`, { as: stranger.creds });
    expect(mark.status).toBe(403);
    expect((await notificationsOf(target))[0]!.seen).toBe(false);
    // An Admin may do both.
    expect((await t.call('PUT', `/users/${target.user.id}/set_notifications_seen`)).body).toEqual({ updated: 1 });
    expect((await t.call('GET', `/users/${'0'.repeat(32)}/notifications`)).status).toBe(404);
  });

  it('refuses a malformed notification_ids with 422', async () => {
    const target = await t.member();
    const res = await t.call('PUT', `/users/${target.user.id}/set_notifications_seen`, {
      as: target.creds,
      body: { notification_ids: [{ nested: true }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.fields[0].field).toMatch(/^notification_ids/);
  });
});

describe('the list', () => {
  it('answers the records the live stream reads, newest first, for every kind of notification', async () => {
    // One its reader may still act on: a waiting access request to their page.
    const owner = await t.member();
    const asker = await t.member();
    const page = await t.call('POST', '/pages', { as: owner.creds, body: { name: 'Closed', privacy: 'private', page_configuration_id: configId, user_id: owner.user.id } });
    expect(page.status).toBe(201);
    expect((await t.call('POST', '/page_access_requests', { as: asker.creds, body: { page_id: page.body.id, user_id: asker.user.id } })).status).toBe(201);
    await t.app.fanOut.drain();
    const users = (await t.store.db.selectFrom('notifications').select('user_id').distinct().execute()).map((r) => r.user_id);
    expect(users.length).toBeGreaterThan(5);
    const kinds = new Set<string>();
    let actionable = 0;
    for (const userId of users)
      for (let round = 0; round < 2; round++) {
        const listed = await t.store.notifications.list(userId, false, { page: 1, per_page: 100 });
        // The records as the live stream reads them (every column, joined), newest first as the list.
        const rows = (await t.store.notifications.listAfter(userId, 0, 100)).sort((a, b) => (a.id < b.id ? 1 : -1));
        expect(listed.rows.map((r) => r.id)).toEqual(rows.map((r) => r.id));
        rows.forEach((r) => kinds.add(`${r.notification_type} ${r.comment_info !== '{}'}`));
        const records = JSON.stringify(await toNotificationRecords(t.store, rows, t.clock()));
        if (records.includes('"permissions":["accept","refuse"]')) actionable++;
        const res = await t.app.inject({
          method: 'GET',
          url: `/public-api/v1/users/${userId}/notifications?per_page=100`,
          headers: { 'api-key': t.admin.key, 'api-secret': t.admin.secret },
        });
        expect(res.body).toBe(records);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      }
    // Every kind of notification the tests above made, comments' excerpts and actionable ones among them.
    expect(kinds.size).toBeGreaterThan(5);
    expect(actionable).toBeGreaterThan(0);
  });
});
