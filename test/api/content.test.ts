import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/** Statuses, comments, likes and the stream: who may post, who may read, and what each user's stream shows. */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Content' } })).body.id;
});

const page = async (owner: Who, privacy: string) =>
  (
    await t.call('POST', '/pages', {
      as: owner.creds,
      body: { name: `${privacy} page`, privacy, page_configuration_id: configId, user_id: owner.user.id },
    })
  ).body as { id: string };
const post = (who: Who, body: Record<string, unknown>) =>
  t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'A status', ...body } });
const streamOf = async (who: Who) => {
  const res = await t.call('GET', `/users/${who.user.id}/stream?per_page=100`, { as: who.creds });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items.map((s: { id: string }) => s.id) as string[];
};
const followPage = async (who: Who, pageId: string, as: Credentials = who.creds) => {
  const res = await t.call('POST', '/follows', { as, body: { followable_type: 'Page', followable_id: pageId, user_id: who.user.id } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
};

describe('POST /statuses', () => {
  it('creates a status on the profile and answers it with its author', async () => {
    const ada = await t.member();
    const res = await post(ada, { content: '  Hello, world  ' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: ada.user.id, content: 'Hello, world', page_id: null, event_id: null, comments_count: 0, likes_count: 0 });
    expect(res.body.user.id).toBe(ada.user.id);
    expect((await t.call('GET', `/statuses/${res.body.id}`, { as: ada.creds })).body).toEqual(res.body);
  });

  it('validates the body: content required and bounded, not both page_id and event_id (422)', async () => {
    const ada = await t.member();
    expect((await post(ada, { content: '' })).status).toBe(422);
    expect((await post(ada, { content: 'x'.repeat(5001) })).status).toBe(422);
    const both = await post(ada, { page_id: 'a', event_id: 'b' });
    expect(both.status).toBe(422);
    expect(both.body.error.fields).toEqual([
      { field: 'event_id', message: 'must not be given with a page: a status is in a page or in an event, not both' },
    ]);
  });

  it('lets only members post in a page (403), hides secret pages (404), and applies the acting-user rule', async () => {
    const [owner, member, outsider] = [await t.member(), await t.member(), await t.member()];
    const [pub, priv, secret] = [await page(owner, 'public'), await page(owner, 'private'), await page(owner, 'secret')];
    expect((await post(owner, { page_id: priv.id })).status).toBe(201);
    expect((await post(outsider, { page_id: pub.id })).status).toBe(403);
    expect((await post(outsider, { page_id: priv.id })).status).toBe(403);
    expect((await post(outsider, { page_id: secret.id })).status).toBe(404);
    await followPage(member, pub.id);
    expect((await post(member, { page_id: pub.id })).status).toBe(201);
    const forOther = await t.call('POST', '/statuses', { as: member.creds, body: { user_id: owner.user.id, content: 'x' } });
    expect(forOther.status).toBe(403);
    // An Admin acts for anyone, within what that user may do.
    expect((await t.call('POST', '/statuses', { body: { user_id: owner.user.id, content: 'x', page_id: secret.id } })).status).toBe(201);
    expect((await t.call('POST', '/statuses', { body: { user_id: outsider.user.id, content: 'x', page_id: priv.id } })).status).toBe(403);
  });

  it("opens an event's conversation to its creator and to yes and maybe answers only", async () => {
    const [creator, yes, maybe, no, stranger] = await Promise.all([t.member(), t.member(), t.member(), t.member(), t.member()]);
    const event = (
      await t.call('POST', '/events', {
        as: creator.creds,
        body: { name: 'Talk', user_id: creator.user.id, start_date: '2026-12-01T18:00:00Z', end_date: '2026-12-01T20:00:00Z' },
      })
    ).body;
    for (const [who, answer] of [[yes, 'yes'], [maybe, 'maybe'], [no, 'no']] as const)
      await t.call('PUT', `/events/${event.id}/attendance`, { as: who.creds, body: { user_id: who.user.id, answer } });
    const status = await post(creator, { event_id: event.id });
    expect(status.status).toBe(201);
    for (const who of [yes, maybe]) {
      expect((await post(who, { event_id: event.id })).status).toBe(201);
      expect((await t.call('GET', `/statuses/${status.body.id}`, { as: who.creds })).status).toBe(200);
    }
    for (const who of [no, stranger]) {
      expect((await post(who, { event_id: event.id })).status).toBe(403);
      expect((await t.call('GET', `/statuses/${status.body.id}`, { as: who.creds })).status).toBe(403);
      const comment = await t.call('POST', '/comments', { as: who.creds, body: { user_id: who.user.id, status_id: status.body.id, content: 'hi' } });
      expect(comment.status).toBe(403);
    }
    expect((await t.call('GET', `/statuses/${status.body.id}`)).status).toBe(200);
  });
});

describe('comments and likes', () => {
  it('counts comments and likes on the status, lists comments oldest first, and refuses unknown targets', async () => {
    const [author, fan] = [await t.member(), await t.member()];
    const status = (await post(author, {})).body;
    for (const content of ['first', 'second'])
      expect((await t.call('POST', '/comments', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id, content } })).status).toBe(201);
    await t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id } });
    const got = (await t.call('GET', `/statuses/${status.id}`)).body;
    expect(got).toMatchObject({ comments_count: 2, likes_count: 1 });
    const comments = await t.call('GET', `/statuses/${status.id}/comments`);
    expect(comments.body.total_items).toBe(2);
    expect(comments.body.items.map((c: { content: string }) => c.content)).toEqual(['first', 'second']);
    const unknown = '0'.repeat(32);
    expect((await t.call('POST', '/comments', { as: fan.creds, body: { user_id: fan.user.id, status_id: unknown, content: 'x' } })).status).toBe(404);
    expect((await t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, comment_id: unknown } })).status).toBe(404);
    const neither = await t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id } });
    expect(neither.status).toBe(422);
    const both = await t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id, comment_id: unknown } });
    expect(both.status).toBe(422);
  });

  it('gives one like per user and target when likes race: one 201, the rest 409', async () => {
    const [author, fan] = [await t.member(), await t.member()];
    const status = (await post(author, {})).body;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(7);
    expect((await t.call('GET', `/statuses/${status.id}`)).body.likes_count).toBe(1);
  });
});

describe('GET /users/{id}/stream', () => {
  it('shows what the user follows, newest first, across public, private and secret pages, events and users', async () => {
    const [owner, member, outsider, friend] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const [pub, priv, secret] = [await page(owner, 'public'), await page(owner, 'private'), await page(owner, 'secret')];
    // member: in all three pages (the Admin lets them into the private and secret ones) and follows friend.
    await followPage(member, pub.id);
    await followPage(member, priv.id, t.admin);
    await followPage(member, secret.id, t.admin);
    await t.call('POST', '/follows', { as: member.creds, body: { followable_type: 'User', followable_id: friend.user.id, user_id: member.user.id } });
    // outsider: follows the public page and the friend only.
    await followPage(outsider, pub.id);
    await t.call('POST', '/follows', { as: outsider.creds, body: { followable_type: 'User', followable_id: friend.user.id, user_id: outsider.user.id } });
    const event = (
      await t.call('POST', '/events', {
        as: owner.creds,
        body: { name: 'Meetup', user_id: owner.user.id, start_date: '2026-12-01T18:00:00Z', end_date: '2026-12-01T20:00:00Z' },
      })
    ).body;
    await t.call('PUT', `/events/${event.id}/attendance`, { as: member.creds, body: { user_id: member.user.id, answer: 'yes' } });

    const ids: Record<string, string> = {};
    for (const [name, who, body] of [
      ['public', owner, { page_id: pub.id }],
      ['private', owner, { page_id: priv.id }],
      ['secret', owner, { page_id: secret.id }],
      ['event', owner, { event_id: event.id }],
      ['friend', friend, {}],
      ['unfollowed', owner, {}],
    ] as const) {
      t.clock.advance(1000);
      ids[name] = (await post(who, body)).body.id;
    }
    expect(await streamOf(member)).toEqual([ids.friend, ids.event, ids.secret, ids.private, ids.public]);
    expect(await streamOf(outsider)).toEqual([ids.friend, ids.public]);
    // What the outsider does not see in their stream, they cannot read either.
    expect((await t.call('GET', `/statuses/${ids.private}`, { as: outsider.creds })).status).toBe(403);
    expect((await t.call('GET', `/statuses/${ids.secret}`, { as: outsider.creds })).status).toBe(404);
    expect((await t.call('GET', `/statuses/${ids.public}`, { as: outsider.creds })).status).toBe(200);
    // An Admin reads anyone's stream, and every status.
    const asAdmin = await t.call('GET', `/users/${outsider.user.id}/stream`);
    expect(asAdmin.body.items.map((s: { id: string }) => s.id)).toEqual([ids.friend, ids.public]);
    expect((await t.call('GET', `/statuses/${ids.secret}`)).status).toBe(200);
    // A followed user's status in a private page does not reach a follower outside the page.
    t.clock.advance(1000);
    const inPrivate = (await post(owner, { page_id: priv.id })).body.id;
    await t.call('POST', '/follows', { as: outsider.creds, body: { followable_type: 'User', followable_id: owner.user.id, user_id: outsider.user.id } });
    expect(await streamOf(outsider)).not.toContain(inPrivate);
    expect((await streamOf(outsider)).length).toBe(3);
  });

  it('is the user’s own (and the Admins’): 403 for others, 404 for an unknown user, paged', async () => {
    const [a, b] = [await t.member(), await t.member()];
    expect((await t.call('GET', `/users/${a.user.id}/stream`, { as: b.creds })).status).toBe(403);
    expect((await t.call('GET', `/users/${'0'.repeat(32)}/stream`)).status).toBe(404);
    const res = await t.call('GET', `/users/${a.user.id}/stream?per_page=5`, { as: a.creds });
    expect(res.body).toEqual({ items: [], total_items: 0 });
  });

  it("refuses another list's cursor (another width) with 400, whether or not anything follows it in the stream", async () => {
    const [reader, poster] = [await t.member(), await t.member()];
    // The audit log walks two keys; a stream one.
    const link = (await t.call('GET', '/audit_log?per_page=1')).headers.link as string;
    const cursor = /cursor=([^&>]+)/.exec(link)![1];
    const read = () => t.call('GET', `/users/${reader.user.id}/stream?per_page=5&cursor=${cursor}`, { as: reader.creds });
    // Nothing in the stream (no source has a status after any cursor), then a followed user's status.
    for (const before of [async () => {}, async () => void (await t.call('POST', '/follows', { as: reader.creds, body: { followable_type: 'User', followable_id: poster.user.id, user_id: reader.user.id } }))]) {
      await before();
      await post(poster, {});
      const res = await read();
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_query', message: expect.stringMatching(/^cursor is not one this server gave/) });
    }
  });
});
