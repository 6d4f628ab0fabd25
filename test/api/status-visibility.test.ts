import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/**
 * Who reads a status (and its comments) is one rule (`src/store/visibility.ts`): this reads it back through every
 * path (the single read, `GET /statuses` and its total, the stream and its total, a comment's read, a status's
 * `comments_count` and comment list) for each kind of viewer, and checks that every path agrees with the table.
 */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials | undefined };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Visibility' } })).body.id;
});

const created = async (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};
const page = (owner: Who, privacy: string) =>
  t
    .call('POST', '/pages', { as: owner.creds, body: { name: `${privacy} room`, privacy, page_configuration_id: configId, user_id: owner.user.id } })
    .then(created);
const post = (who: Who, body: Record<string, unknown> = {}) =>
  t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'A status', ...body } }).then(created);
const follow = (who: Who, type: 'Page' | 'User', id: string) =>
  t.call('POST', '/follows', { body: { followable_type: type, followable_id: id, user_id: who.user.id } }).then(created);

describe('one rule for who reads a status', () => {
  it('answers the same through the single read, the list and its total, the stream and its total, and comments, for each viewer', async () => {
    const [creator, member, outsider, bob, leaver] = [await t.member(), await t.member(), await t.member(), await t.member(), await t.member()];
    const admin: Who = { user: { id: t.admin.id }, creds: undefined };
    const [pub, priv, secret] = [await page(creator, 'public'), await page(creator, 'private'), await page(creator, 'secret')];
    // bob (suspended below) is in everything, so that his comments can be on every status.
    for (const p of [pub, priv, secret]) for (const who of [member, bob]) await follow(who, 'Page', p.id);
    await follow(outsider, 'Page', pub.id);
    for (const who of [member, outsider]) for (const author of [creator, bob]) await follow(who, 'User', author.user.id);
    const event = (when: string, pageId?: string) =>
      t
        .call('POST', '/events', {
          as: creator.creds,
          body: { name: 'Meetup', user_id: creator.user.id, start_date: `${when}T18:00:00Z`, end_date: `${when}T20:00:00Z`, ...(pageId ? { page_id: pageId } : {}) },
        })
        .then(created);
    const [open, inSecret, inPrivate] = [await event('2026-12-01'), await event('2026-12-02', secret.id), await event('2026-12-03', priv.id)];
    const attend = async (who: Who, e: { id: string }, answer: string) =>
      expect((await t.call('PUT', `/events/${e.id}/attendance`, { as: who.creds, body: { user_id: who.user.id, answer } })).status).toBe(200);
    await attend(member, open, 'maybe');
    await attend(member, inPrivate, 'yes');
    for (const e of [open, inSecret, inPrivate]) await attend(bob, e, 'yes');
    // leaver answered yes to the events in the secret and the private page while in them, then left the pages: the
    // secret one's conversation is as hidden from them as the page, the private one's as closed as the page's statuses.
    for (const [p, e] of [[secret, inSecret], [priv, inPrivate]] as const) {
      const leaving = await follow(leaver, 'Page', p.id);
      await attend(leaver, e, 'yes');
      expect((await t.call('DELETE', `/follows/${leaving.id}`)).status).toBe(204);
    }

    const s: Record<string, string> = {};
    for (const [name, who, body] of [
      ['public', creator, { page_id: pub.id }],
      ['private', creator, { page_id: priv.id }],
      ['secret', creator, { page_id: secret.id }],
      ['event', creator, { event_id: open.id }],
      ['secretEvent', creator, { event_id: inSecret.id }],
      ['privateEvent', creator, { event_id: inPrivate.id }],
      ['profile', creator, {}],
      ['suspended', bob, { page_id: pub.id }],
    ] as const) {
      t.clock.advance(1000);
      s[name] = (await post(who, body)).id;
    }
    // Each status gets a comment by its own author and one by bob (hidden with bob, below).
    const comments: Record<string, string> = {};
    for (const [name, id] of Object.entries(s)) {
      const author = name === 'suspended' ? bob : creator;
      comments[name] = (await t.call('POST', '/comments', { body: { user_id: author.user.id, status_id: id, content: 'A comment' } }).then(created)).id;
      await t.call('POST', '/comments', { body: { user_id: bob.user.id, status_id: id, content: 'Buy now' } }).then(created);
    }
    expect((await t.call('PUT', `/users/${bob.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);

    // What each viewer's single read answers: 200 readable, 403 known but closed, 404 hidden.
    const table: [string, Who, Record<string, 200 | 403 | 404>][] = [
      ['Admin', admin, { public: 200, private: 200, secret: 200, event: 200, secretEvent: 200, privateEvent: 200, profile: 200, suspended: 200 }],
      ['creator', creator, { public: 200, private: 200, secret: 200, event: 200, secretEvent: 200, privateEvent: 200, profile: 200, suspended: 404 }],
      ['member', member, { public: 200, private: 200, secret: 200, event: 200, secretEvent: 403, privateEvent: 200, profile: 200, suspended: 404 }],
      ['outsider', outsider, { public: 200, private: 403, secret: 404, event: 403, secretEvent: 404, privateEvent: 403, profile: 200, suspended: 404 }],
      ['leaver', leaver, { public: 200, private: 403, secret: 404, event: 403, secretEvent: 404, privateEvent: 403, profile: 200, suspended: 404 }],
    ];
    const idsOf = (res: { body: { items: { id: string }[] } }) => res.body.items.map((x) => x.id);
    for (const [who, viewer, expected] of table) {
      const readable = Object.keys(s).filter((name) => expected[name] === 200);
      const label = (path: string) => `${who}: ${path}`;
      for (const [name, code] of Object.entries(expected)) {
        expect((await t.call('GET', `/statuses/${s[name]}`, { as: viewer.creds })).status, label(`GET /statuses/{${name}}`)).toBe(code);
        expect((await t.call('GET', `/comments/${comments[name]}`, { as: viewer.creds })).status, label(`GET /comments/{${name}'s}`)).toBe(
          name === 'suspended' && code === 403 ? 404 : code,
        );
        const list = await t.call('GET', `/statuses/${s[name]}/comments`, { as: viewer.creds });
        expect(list.status, label(`GET /statuses/{${name}}/comments`)).toBe(code);
        if (code === 200) expect(list.body.total_items, label(`${name}'s comment total`)).toBe(who === 'Admin' ? 2 : name === 'suspended' ? 0 : 1);
      }
      // The list and its total, in two filters (the creator's statuses, bob's).
      const listed = [
        await t.call('GET', `/statuses?user_id=${creator.user.id}&per_page=100`, { as: viewer.creds }),
        await t.call('GET', `/statuses?user_id=${bob.user.id}&per_page=100`, { as: viewer.creds }),
      ];
      const items = listed.flatMap((res) => res.body.items as { id: string; comments_count: number }[]);
      expect(items.map((x) => x.id).sort(), label('GET /statuses')).toEqual(readable.map((name) => s[name]).sort());
      expect(listed[0]!.body.total_items + listed[1]!.body.total_items, label('GET /statuses total')).toBe(readable.length);
      // The kept comments_count leaves out the comments the viewer may not read.
      for (const x of items) expect(x.comments_count, label('comments_count')).toBe(who === 'Admin' ? 2 : x.id === s.suspended ? 0 : 1);
      // Every other filter, and none: the rows and the total (from kept counts) agree with the table.
      const filters: [string, string[]][] = [
        ['', Object.keys(s)],
        [`page_id=${pub.id}`, ['public', 'suspended']],
        [`page_id=${priv.id}`, ['private']],
        [`page_id=${secret.id}`, ['secret']],
        [`event_id=${open.id}`, ['event']],
        [`event_id=${inSecret.id}`, ['secretEvent']],
        [`event_id=${inPrivate.id}`, ['privateEvent']],
        [`user_id=${creator.user.id}&page_id=${pub.id}`, ['public']],
        [`user_id=${bob.user.id}&page_id=${pub.id}`, ['suspended']],
        [`page_id=${pub.id}&event_id=${open.id}`, []],
      ];
      for (const [query, names] of filters) {
        const res = await t.call('GET', `/statuses?${query}&per_page=100`, { as: viewer.creds });
        const want = names.filter((name) => readable.includes(name));
        expect(res.status, label(`GET /statuses?${query}`)).toBe(200);
        expect(idsOf(res).sort(), label(`GET /statuses?${query}`)).toEqual(want.map((name) => s[name]).sort());
        expect(res.body.total_items, label(`GET /statuses?${query} total`)).toBe(want.length);
      }
    }

    // The stream: what the reader follows, as far as the same rule lets them read it (an event's statuses come to
    // those who answered yes: the member, a maybe, reads that conversation but does not have it in the stream).
    const streams: [Who, Who, string[]][] = [
      [member, member, ['public', 'private', 'secret', 'privateEvent', 'profile']],
      [outsider, outsider, ['public', 'profile']],
      [leaver, leaver, []],
      [leaver, admin, ['secretEvent', 'privateEvent']],
      // An Admin reading a member's stream sees the suspended author's status the member does not.
      [member, admin, ['public', 'private', 'secret', 'privateEvent', 'profile', 'suspended']],
      [outsider, admin, ['public', 'profile', 'suspended']],
    ];
    for (const [reader, viewer, names] of streams) {
      const res = await t.call('GET', `/users/${reader.user.id}/stream?per_page=100`, { as: viewer.creds });
      expect(res.status).toBe(200);
      expect(idsOf(res).sort()).toEqual(names.map((name) => s[name]).sort());
      expect(res.body.total_items).toBe(names.length);
      // Every status a stream shows, its reader can read.
      for (const id of idsOf(res)) expect((await t.call('GET', `/statuses/${id}`, { as: viewer.creds })).status).toBe(200);
    }
  });
});
