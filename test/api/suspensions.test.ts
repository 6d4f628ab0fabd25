import { beforeAll, describe, expect, it } from 'vitest';
import { startApp, useApp } from '../helpers/app.js';
import { removeDir, type Credentials } from '../helpers/server.js';

/** PUT/DELETE /users/{id}/suspension (docs/api.md, "Moderating content and people"): keys refused, content hidden, no new ties, over by itself at `until`. */
const t = useApp();
type Who = { user: { id: string; nickname: string }; creds: Credentials };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Suspension' } })).body.id;
});

const page = async (owner: Who, privacy: string) =>
  (await t.call('POST', '/pages', { as: owner.creds, body: { name: `${privacy} club`, privacy, page_configuration_id: configId, user_id: owner.user.id } }))
    .body as { id: string };
const post = async (who: Who, body: Record<string, unknown> = {}) => {
  const res = await t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'hello', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};
const suspend = (who: Who, body: Record<string, unknown>, as?: Credentials) => t.call('PUT', `/users/${who.user.id}/suspension`, { as, body });
const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((s) => s.id);

describe('suspension', () => {
  it('is for Admins; refuses the user keys with account_suspended naming reason and end; lifting tells the user', async () => {
    const [bob, other] = [await t.member(), await t.member()];
    expect((await suspend(bob, { reason: 'spam' }, other.creds)).status).toBe(403);
    expect((await suspend(bob, {})).status).toBe(422);
    expect((await suspend(bob, { reason: 'spam', until: '2020-01-01T00:00:00Z' })).status).toBe(422);
    const res = await suspend(bob, { reason: 'spam', until: '2026-12-01T00:00:00Z' }, undefined);
    expect(res.status).toBe(200);
    expect(res.body.suspension).toEqual({ reason: 'spam', until: '2026-12-01T00:00:00.000Z', created_at: t.clock().toISOString(), created_by: t.admin.id });
    expect((await t.call('GET', `/users/${bob.user.id}`)).body.suspension).toMatchObject({ reason: 'spam' });
    const refused = await t.call('GET', `/users/${bob.user.id}`, { as: bob.creds });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('account_suspended');
    expect(refused.body.error.message).toContain('spam');
    expect(refused.body.error.message).toContain('2026-12-01T00:00:00.000Z');
    expect((await t.call('GET', `/audit_log?action=user.suspend&target_id=${bob.user.id}`)).body.total_items).toBe(1);

    expect((await t.call('DELETE', `/users/${bob.user.id}/suspension`, { as: other.creds })).status).toBe(403);
    const lifted = await t.call('DELETE', `/users/${bob.user.id}/suspension`);
    expect(lifted.status).toBe(200);
    expect(lifted.body.suspension).toBeNull();
    expect(lifted.headers['suspension-lifted']).toBe('true');
    // Lifted again: nothing to lift, and DELETE is idempotent (the user, unsuspended), with no second entry or notice;
    // its Suspension-Lifted header says there was nothing to lift.
    const again = await t.call('DELETE', `/users/${bob.user.id}/suspension`);
    expect([again.status, again.body.id, again.body.suspension, again.headers['suspension-lifted']]).toEqual([200, bob.user.id, null, 'false']);
    const never = await t.member();
    expect((await t.call('DELETE', `/users/${never.user.id}/suspension`)).headers['suspension-lifted']).toBe('false');
    expect((await t.call('GET', `/users/${bob.user.id}`, { as: bob.creds })).status).toBe(200);
    const told = ((await t.call('GET', `/users/${bob.user.id}/notifications`, { as: bob.creds })).body as { notification_type: string }[]).filter(
      (n) => n.notification_type === 'suspension_lifted',
    );
    expect(told).toHaveLength(1);
    expect((await t.call('GET', `/audit_log?action=user.unsuspend&target_id=${bob.user.id}`)).body.total_items).toBe(1);
  });

  it('suspended ten times at once: every answer 200, one suspension; lifted ten times at once: ten 200s, one notice', async () => {
    const bob = await t.member();
    const puts = await Promise.all(Array.from({ length: 10 }, (_, i) => suspend(bob, { reason: `spam ${i}` })));
    expect(puts.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await t.call('GET', `/users/${bob.user.id}`)).body.suspension).toMatchObject({ reason: expect.stringMatching(/^spam \d$/) });
    const lifts = await Promise.all(Array.from({ length: 10 }, () => t.call('DELETE', `/users/${bob.user.id}/suspension`)));
    expect(lifts.map((r) => [r.status, r.body.suspension])).toEqual(Array(10).fill([200, null]));
    // The lift that ended it, alone, says so.
    expect(lifts.map((r) => r.headers['suspension-lifted']).sort()).toEqual([...Array(9).fill('false'), 'true']);
    const told = ((await t.call('GET', `/users/${bob.user.id}/notifications`, { as: bob.creds })).body as { notification_type: string }[]).filter(
      (n) => n.notification_type === 'suspension_lifted',
    );
    expect(told).toHaveLength(1);
    expect((await t.call('GET', `/audit_log?action=user.unsuspend&target_id=${bob.user.id}`)).body.total_items).toBe(1);
  });

  it('never suspends oneself (409 cannot_suspend_self)', async () => {
    const res = await t.call('PUT', `/users/${t.admin.id}/suspension`, { body: { reason: 'x' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('cannot_suspend_self');
  });

  it("hides the user's statuses and comments from all but Admins, in lists, streams, counts and reads, until it ends at `until`", async () => {
    const [owner, bob, reader] = [await t.member(), await t.member(), await t.member()];
    const pub = await page(owner, 'public');
    for (const who of [bob, reader])
      await t.call('POST', '/follows', { body: { followable_type: 'Page', followable_id: pub.id, user_id: who.user.id } });
    await t.call('POST', '/follows', { body: { followable_type: 'User', followable_id: bob.user.id, user_id: reader.user.id } });
    const mine = await post(owner, { page_id: pub.id });
    const inPage = await post(bob, { page_id: pub.id });
    const onProfile = await post(bob);
    const c = (await t.call('POST', '/comments', { as: bob.creds, body: { user_id: bob.user.id, status_id: mine.id, content: 'buy now' } })).body;
    await t.call('POST', '/comments', { as: reader.creds, body: { user_id: reader.user.id, status_id: mine.id, content: 'nice' } });

    const stream = async () => (await t.call('GET', `/users/${reader.user.id}/stream`, { as: reader.creds })).body;
    expect(ids({ body: await stream() })).toEqual([onProfile.id, inPage.id, mine.id]);
    // What notifications quote of bob's words: his comment to the owner, his status to the reader (fanned out).
    type Told = { notification_type: string; subject_id: string; target_id: string; target_name: string | null; comment_info: object };
    const quotes = async (who: typeof owner, type: string) =>
      ((await t.call('GET', `/users/${who.user.id}/notifications?per_page=100`, { as: who.creds })).body as Told[])
        .filter((n) => n.notification_type === type && n.subject_id === bob.user.id)
        .map((n) => [n.target_id, n.target_name, n.comment_info]);
    for (let i = 0; i < 100 && (await quotes(reader, 'status')).length < 2; i++) await new Promise((ok) => setTimeout(ok, 20));
    expect(await quotes(owner, 'comment')).toEqual([[c.id, 'buy now', { id: c.id, excerpt: 'buy now' }]]);
    expect((await quotes(reader, 'status')).map(([, name]) => name).sort()).toEqual(['hello', 'hello']);

    expect((await suspend(bob, { reason: 'spam', until: '2026-11-21T00:00:00Z' })).status).toBe(200);
    const hidden = await stream();
    expect(ids({ body: hidden })).toEqual([mine.id]);
    expect(hidden.total_items).toBe(1);
    const listed = await t.call('GET', `/statuses?page_id=${pub.id}`, { as: reader.creds });
    expect(ids(listed)).toEqual([mine.id]);
    expect(listed.body.total_items).toBe(1);
    const comments = await t.call('GET', `/statuses/${mine.id}/comments`, { as: reader.creds });
    expect(comments.body.items).toHaveLength(1);
    expect(comments.body.total_items).toBe(1);
    expect((await t.call('GET', `/statuses/${inPage.id}`, { as: reader.creds })).status).toBe(404);
    expect((await t.call('GET', `/comments/${c.id}`, { as: reader.creds })).status).toBe(404);
    expect((await t.call('POST', '/likes', { as: reader.creds, body: { user_id: reader.user.id, status_id: inPage.id } })).status).toBe(404);
    // Admins see everything.
    expect(ids(await t.call('GET', `/statuses?page_id=${pub.id}`))).toEqual([inPage.id, mine.id]);
    expect((await t.call('GET', `/statuses/${inPage.id}`)).status).toBe(200);

    // Notifications no longer quote him, for anyone (Admins read the content itself).
    expect(await quotes(owner, 'comment')).toEqual([[c.id, null, {}]]);
    expect((await quotes(reader, 'status')).map(([, name]) => name)).toEqual([null, null]);

    // Records embedding the user show the suspension in force at the app's clock (not the wall clock's, past it).
    const inList = async () => (await t.call('GET', `/users?nickname=${bob.user.nickname}`)).body.items[0].suspension;
    const asAuthor = async () =>
      (await t.call('GET', `/statuses?page_id=${pub.id}`)).body.items.find((s: { id: string }) => s.id === inPage.id).user.suspension;
    expect(await inList()).toMatchObject({ reason: 'spam' });
    expect(await asAuthor()).toMatchObject({ reason: 'spam' });

    // Over by itself once `until` is past.
    t.clock.set('2026-11-21T00:00:01Z');
    expect(await inList()).toBeNull();
    expect(await asAuthor()).toBeNull();
    expect(ids({ body: await stream() })).toEqual([onProfile.id, inPage.id, mine.id]);
    expect((await stream()).total_items).toBe(3);
    expect(await quotes(owner, 'comment')).toEqual([[c.id, 'buy now', { id: c.id, excerpt: 'buy now' }]]);
    expect((await t.call('GET', `/users/${bob.user.id}`, { as: bob.creds })).status).toBe(200);
    expect((await t.call('GET', `/users/${bob.user.id}`)).body.suspension).toBeNull();
    t.clock.set('2026-11-20T10:00:00.000Z');
  });

  it('refuses following, inviting and letting in a suspended user (409 user_suspended, "User suspended")', async () => {
    const [owner, bob, fan] = [await t.member(), await t.member(), await t.member()];
    const priv = await page(owner, 'private');
    const request = (await t.call('POST', '/page_access_requests', { as: bob.creds, body: { page_id: priv.id, user_id: bob.user.id } })).body;
    const other = await page(owner, 'private');
    const inviteTo = (to: { id: string }) =>
      t.call('POST', '/invites', { as: owner.creds, body: { target_type: 'Page', target_id: to.id, user_id: owner.user.id, user_target_ids: [bob.user.id] } });
    expect((await inviteTo(other)).body.success).toHaveLength(1);
    expect((await suspend(bob, { reason: 'abuse' })).status).toBe(200);
    // An invite waiting from before is the answer, as the invite's own row tells it before moderation's turn.
    expect((await inviteTo(other)).body.errors).toEqual([{ [bob.user.id]: 'User already invite' }]);
    const follow = await t.call('POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: bob.user.id, user_id: fan.user.id } });
    expect(follow.status).toBe(409);
    expect(follow.body.error.code).toBe('user_suspended');
    const invite = await inviteTo(priv);
    expect(invite.body.errors).toEqual([{ [bob.user.id]: 'User suspended' }]);
    const accept = await t.call('PUT', `/page_access_requests/${request.id}/accept`, { as: owner.creds });
    expect(accept.status).toBe(409);
    expect(accept.body.error.code).toBe('user_suspended');
    // Nor an Admin, following the page for them: that would let them in as well.
    const admitted = await t.call('POST', '/follows', { body: { followable_type: 'Page', followable_id: priv.id, user_id: bob.user.id } });
    expect(admitted.status).toBe(409);
    expect(admitted.body.error.code).toBe('user_suspended');
    await t.call('DELETE', `/users/${bob.user.id}/suspension`);
    expect((await t.call('PUT', `/page_access_requests/${request.id}/accept`, { as: owner.creds })).status).toBe(200);
    expect((await t.call('POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: bob.user.id, user_id: fan.user.id } })).status).toBe(201);
  });

  it('lets a user be followed again once their suspension is past its until, with no one lifting it', async () => {
    const [bob, fan] = [await t.member(), await t.member()];
    expect((await suspend(bob, { reason: 'a week off', until: '2026-11-20T12:00:00.000Z' })).status).toBe(200);
    const follow = () => t.call('POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: bob.user.id, user_id: fan.user.id } });
    expect((await follow()).status).toBe(409);
    t.clock.set('2026-11-20T12:00:00.001Z');
    try {
      expect((await follow()).status).toBe(201);
    } finally {
      t.clock.set('2026-11-20T10:00:00.000Z');
    }
  });

  it('lifts nothing, answering the user (200), for one never suspended or whose suspension ended by itself: no audit entry, no notice', async () => {
    const [never, ended] = [await t.member(), await t.member()];
    expect((await suspend(ended, { reason: 'an hour off', until: '2026-11-20T11:00:00.000Z' })).status).toBe(200);
    t.clock.set('2026-11-20T11:00:00.001Z');
    try {
      for (const who of [never, ended]) {
        const lifted = await t.call('DELETE', `/users/${who.user.id}/suspension`);
        expect([lifted.status, lifted.body.id, lifted.body.suspension], JSON.stringify(lifted.body)).toEqual([200, who.user.id, null]);
        expect((await t.call('GET', `/audit_log?action=user.unsuspend&target_id=${who.user.id}`)).body.total_items).toBe(0);
        const told = (await t.call('GET', `/users/${who.user.id}/notifications`, { as: who.creds })).body as { notification_type: string }[];
        expect(told.filter((n) => n.notification_type === 'suspension_lifted')).toEqual([]);
      }
    } finally {
      t.clock.set('2026-11-20T10:00:00.000Z');
    }
    // An unknown user is still a 404.
    expect((await t.call('DELETE', `/users/${'0'.repeat(32)}/suspension`)).status).toBe(404);
  });
});

describe('the last Admin who is not suspended', () => {
  it('cannot be demoted either: a suspended Admin does not stand in for them', async () => {
    const app = await startApp();
    try {
      const roles = (await app.call('GET', '/permission_sets?per_page=100')).body.items as { id: string; name: string }[];
      const role = (name: string) => roles.find((r) => r.name === name)!.id;
      const ada = await app.member();
      expect((await app.call('PUT', `/users/${ada.user.id}/role`, { body: { permission_set_id: role('Admins') } })).status).toBe(200);
      expect((await app.call('PUT', `/users/${ada.user.id}/suspension`, { body: { reason: 'away' } })).status).toBe(200);
      const demote = () => app.call('PUT', `/users/${app.admin.id}/role`, { body: { permission_set_id: role('Members') } });
      const refused = await demote();
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toMatch(/last administrator who is not suspended/);
      // Her suspension lifted, she stands in.
      expect((await app.call('DELETE', `/users/${ada.user.id}/suspension`)).status).toBe(200);
      expect((await demote()).status).toBe(200);
    } finally {
      await app.close();
      removeDir(app.dir);
    }
  });
});

describe('GET /users?suspended=', () => {
  type Listed = { body: { items: { id: string; suspension: unknown }[]; total_items: number } };
  const list = (query: string): Promise<Listed> => t.call('GET', `/users?per_page=100&${query}`);
  it('lists those suspended now, or only the others, with exact totals; one past its until, or lifted, is not', async () => {
    const [ann, ben, cat] = [await t.member(), await t.member(), await t.member()];
    expect((await suspend(ann, { reason: 'spam' })).status).toBe(200);
    expect((await suspend(ben, { reason: 'abuse', until: '2026-11-20T11:00:00Z' })).status).toBe(200);
    const check = async (suspended: string[], not: string[]) => {
      const [all, yes, no] = [await list(''), await list('suspended=true'), await list('suspended=false')];
      expect(all.body.total_items).toBeLessThanOrEqual(100);
      expect(ids(yes)).toEqual(expect.arrayContaining(suspended));
      expect(ids(no)).toEqual(expect.arrayContaining(not));
      for (const id of not) expect(ids(yes)).not.toContain(id);
      for (const id of suspended) expect(ids(no)).not.toContain(id);
      expect(yes.body.items.every((u) => u.suspension !== null)).toBe(true);
      expect(no.body.items.every((u) => u.suspension === null)).toBe(true);
      // Exact totals, in id order like any list of users.
      expect(yes.body.total_items).toBe(yes.body.items.length);
      expect(no.body.total_items).toBe(no.body.items.length);
      expect(yes.body.total_items + no.body.total_items).toBe(all.body.total_items);
      expect([...ids(yes)].sort()).toEqual(ids(yes));
    };
    await check([ann.user.id, ben.user.id], [cat.user.id]);
    // Paged by cursor like any list.
    const first = await t.call('GET', '/users?suspended=true&per_page=1');
    const next = await t.call('GET', `/users?suspended=true&per_page=1&cursor=${/cursor=([^&>]+)/.exec(first.headers.link as string)![1]}`);
    expect(ids(next)).toEqual([ids(await list('suspended=true'))[1]]);
    // With a role: the Members among them.
    const members = (await t.call('GET', '/permission_sets?name=Members')).body.items[0].id;
    expect(ids(await list(`suspended=true&role=${members}`))).toEqual(expect.arrayContaining([ann.user.id, ben.user.id]));
    expect((await t.call('GET', '/users?suspended=yes')).status).toBe(400);

    t.clock.set('2026-11-20T11:00:00.001Z');
    try {
      await check([ann.user.id], [ben.user.id, cat.user.id]);
    } finally {
      t.clock.set('2026-11-20T10:00:00.000Z');
    }
    expect((await t.call('DELETE', `/users/${ann.user.id}/suspension`)).status).toBe(200);
    expect((await t.call('DELETE', `/users/${ben.user.id}/suspension`)).status).toBe(200);
    await check([], [ann.user.id, ben.user.id, cat.user.id]);
  });
});
