import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir, type Credentials } from '../helpers/server.js';

/**
 * Who may know of an invite or an access request is one rule (the store's `invitesSeenBy` and
 * `accessRequestsSeenBy`), and the list, the single read and the transitions follow it alike: a caller
 * finds a record in the list exactly when they may read it; one they may not know of is a 403 where they
 * know of its page (only the page's administrators settle it) and a 404 where the page is secret to them.
 */
type Who = { user: { id: string }; creds: Credentials | undefined };
let t: TestApp;
const people: Record<string, Who> = {};
const pages: Record<string, string> = {};

beforeAll(async () => {
  t = await startApp();
  for (const name of ['owner', 'sender', 'invitee', 'requester', 'member', 'outsider']) people[name] = await t.member();
  people.admin = { user: { id: t.admin.id }, creds: undefined };
  const config = await t.call('POST', '/page_configurations', { body: { name: 'Club' } });
  for (const privacy of ['private', 'secret']) {
    const page = await t.call('POST', '/pages', {
      as: people.owner!.creds,
      body: { name: `${privacy} club`, privacy, page_configuration_id: config.body.id, user_id: people.owner!.user.id },
    });
    pages[privacy] = page.body.id;
    // The sender and a member who has nothing to do with the invite are in the page (an Admin adds them).
    for (const name of ['sender', 'member']) {
      const res = await t.call('POST', '/follows', { body: { user_id: people[name]!.user.id, followable_type: 'Page', followable_id: page.body.id } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  }
});

afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

const inList = async (url: string, who: Who, id: string) => {
  const res = await t.call('GET', `${url}?per_page=100`, { as: who.creds });
  expect(res.status).toBe(200);
  return res.body.items.some((r: { id: string }) => r.id === id);
};

const newInvite = async (privacy: string) => {
  const res = await t.call('POST', '/invites', {
    as: people.sender!.creds,
    body: { target_type: 'Page', target_id: pages[privacy], user_id: people.sender!.user.id, user_target_ids: [people.invitee!.user.id] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body)).toEqual([]);
  return res.body.success[0].id as string;
};

describe('an invite', () => {
  // caller → [in the list, GET, PUT …/accept] on a private page and on a secret one.
  const expected: Record<string, Record<string, [boolean, number, number]>> = {
    private: {
      admin: [true, 200, 200],
      owner: [true, 200, 200],
      sender: [true, 200, 403],
      invitee: [true, 200, 403],
      member: [false, 403, 403],
      outsider: [false, 403, 403],
    },
    secret: {
      admin: [true, 200, 200],
      owner: [true, 200, 200],
      sender: [true, 200, 403],
      invitee: [true, 200, 403],
      member: [false, 403, 403],
      outsider: [false, 404, 404],
    },
  };
  for (const privacy of ['private', 'secret'])
    it(`on a ${privacy} page: the list, GET and accept agree for each kind of caller`, async () => {
      for (const [name, [listed, get, accept]] of Object.entries(expected[privacy]!)) {
        // A fresh invite for each caller: an administrator's accept settles it.
        const id = await newInvite(privacy);
        const who = people[name]!;
        expect(await inList('/invites', who, id), `${name} list`).toBe(listed);
        expect((await t.call('GET', `/invites/${id}`, { as: who.creds })).status, `${name} get`).toBe(get);
        expect((await t.call('PUT', `/invites/${id}/accept`, { as: who.creds })).status, `${name} accept`).toBe(accept);
        // Whatever was refused changed nothing.
        const state = (await t.call('GET', `/invites/${id}`)).body.state;
        expect(state, `${name} state`).toBe(accept === 200 ? 'accepted' : 'waiting');
        if (accept === 200) {
          // The invitee is in the page now: out again, for the next caller's invite.
          const follows = await t.call('GET', `/follows?user_id=${people.invitee!.user.id}&followable_id=${pages[privacy]}`);
          expect((await t.call('DELETE', `/follows/${follows.body.items[0].id}`)).status).toBe(204);
        } else expect((await t.call('DELETE', `/invites/${id}`, { as: people.sender!.creds })).status).toBe(204); // withdrawn for the next one
      }
    });
});

describe('an access request', () => {
  it('on a private page: the list and accept agree for each kind of caller', async () => {
    // caller → [in the list, PUT …/accept]
    const expected: Record<string, [boolean, number]> = {
      member: [false, 403],
      outsider: [false, 403],
      requester: [true, 403],
      owner: [true, 200],
      admin: [true, 200],
    };
    for (const [name, [listed, accept]] of Object.entries(expected)) {
      const ask = await t.call('POST', '/page_access_requests', {
        as: people.requester!.creds,
        body: { page_id: pages.private, user_id: people.requester!.user.id },
      });
      expect(ask.status, JSON.stringify(ask.body)).toBe(201);
      const id = ask.body.id as string;
      const who = people[name]!;
      expect(await inList('/page_access_requests', who, id), `${name} list`).toBe(listed);
      expect((await t.call('PUT', `/page_access_requests/${id}/accept`, { as: who.creds })).status, `${name} accept`).toBe(accept);
      if (accept === 200) {
        const follows = await t.call('GET', `/follows?user_id=${people.requester!.user.id}&followable_id=${pages.private}`);
        expect((await t.call('DELETE', `/follows/${follows.body.items[0].id}`)).status).toBe(204);
      } else {
        // Refused (by an Admin) for the next caller's turn: a second waiting request would be a 409.
        expect((await t.call('PUT', `/page_access_requests/${id}/refuse`)).status).toBe(204);
      }
    }
  });
});

describe('an accepted invite', () => {
  const acceptedNotices = async (who: Who) =>
    ((await t.call('GET', `/users/${who.user.id}/notifications?per_page=100`)).body as { notification_type: string }[]).filter(
      (n) => n.notification_type === 'invite_accepted',
    ).length;

  it('tells its sender while they are in the secret page, not once they left it: the news would name one who is in it', async () => {
    const [sender, stays, guest, other] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const config = await t.call('POST', '/page_configurations', { body: { name: 'Vault' } });
    const page = await t.call('POST', '/pages', {
      as: people.owner!.creds,
      body: { name: 'Vault', privacy: 'secret', page_configuration_id: config.body.id, user_id: people.owner!.user.id },
    });
    const invite = async (from: Who, to: Who) => {
      const res = await t.call('POST', '/invites', {
        as: from.creds,
        body: { target_type: 'Page', target_id: page.body.id, user_id: from.user.id, user_target_ids: [to.user.id] },
      });
      expect(res.body.errors, JSON.stringify(res.body)).toEqual([]);
      return res.body.success[0].id as string;
    };
    const follows: Record<string, string> = {};
    for (const who of [sender, stays])
      follows[who.user.id] = (await t.call('POST', '/follows', { body: { user_id: who.user.id, followable_type: 'Page', followable_id: page.body.id } })).body.id;
    const [leaving, staying] = [await invite(sender, guest), await invite(stays, other)];
    expect((await t.call('DELETE', `/follows/${follows[sender.user.id]}`, { as: sender.creds })).status).toBe(204);
    for (const id of [leaving, staying]) expect((await t.call('PUT', `/invites/${id}/accept`, { as: people.owner!.creds })).status).toBe(200);
    expect(await acceptedNotices(sender)).toBe(0);
    for (const who of [stays, guest, other]) expect(await acceptedNotices(who)).toBe(1);
  });
});
