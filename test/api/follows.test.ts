import { beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser, createUserWithKey, HEX_ID } from '../helpers/api.js';
import { useServer, type Credentials } from '../helpers/server.js';

const server = useServer();
let configId: string;
beforeAll(async () => {
  configId = (await createPageConfiguration(server)).id;
});


interface FollowRecord {
  id: string;
  user_id: string;
  followable_type: string;
  followable_id: string;
  followable?: Record<string, unknown> | null;
}

/** GET /follows with a query, as the given caller (the bootstrap admin, who sees every follow, by default). */
async function listFollows(query: string, as?: Credentials) {
  const res = await call(server, 'GET', `/follows?${query}`, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { items: FollowRecord[]; total_items: number };
}

/** The follows of one user of one followable, as the admin. */
const followsBetween = (userId: string, type: string, id: string) =>
  listFollows(`user_id=${userId}&followable_type=${type}&followable_id=${id}`);

const newPage = (ownerId: string, privacy = 'public') =>
  createPage(server, { user_id: ownerId, page_configuration_id: configId, privacy });

const follow = (body: Record<string, unknown>, as?: Credentials) => call(server, 'POST', '/follows', { as, body });

describe('POST /follows', () => {
  it('follows a user and answers the follow record', async () => {
    const { user, creds } = await createUserWithKey(server);
    const target = await createUser(server);
    const res = await follow({ followable_type: 'User', followable_id: target.id, user_id: user.id }, creds);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: user.id, followable_type: 'User', followable_id: target.id });
    expect(res.body.id).toMatch(HEX_ID);

    const listed = await followsBetween(user.id, 'User', target.id);
    expect(listed.total_items).toBe(1);
    expect(listed.items[0]!.id).toBe(res.body.id);
  });

  it('follows a public page', async () => {
    const owner = await createUser(server);
    const page = await newPage(owner.id);
    const { user, creds } = await createUserWithKey(server);
    const res = await follow({ followable_type: 'Page', followable_id: page.id, user_id: user.id }, creds);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: user.id, followable_type: 'Page', followable_id: page.id });
    expect(res.body.id).toMatch(HEX_ID);

    const listed = await listFollows(`followable_type=Page&followable_id=${page.id}`, creds);
    expect(listed.items.map((f) => f.user_id).sort()).toEqual([owner.id, user.id].sort());
    expect(listed.total_items).toBe(2);
  });

  it('accepts ids sent as numbers, and the form and multipart bodies', async () => {
    const user = await createUser(server);
    const numeric = await follow({ followable_type: 'User', followable_id: 424242, user_id: user.id });
    expect(numeric.status).toBe(404);
    expect(numeric.body.error.code).toBe('not_found');

    for (const kind of ['form', 'multipart'] as const) {
      const target = await createUser(server);
      const res = await call(server, 'POST', '/follows', {
        kind,
        body: { followable_type: 'User', followable_id: target.id, user_id: user.id },
      });
      expect(res.status, kind).toBe(201);
      expect(res.body).toMatchObject({ user_id: user.id, followable_type: 'User', followable_id: target.id });
    }
    expect((await listFollows(`user_id=${user.id}`)).total_items).toBe(2);
  });

  it('answers 409 already_following to a duplicate follow and keeps one record', async () => {
    const user = await createUser(server);
    const target = await createUser(server);
    const body = { followable_type: 'User', followable_id: target.id, user_id: user.id };
    expect((await follow(body)).status).toBe(201);
    const again = await follow(body);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_following');
    expect((await followsBetween(user.id, 'User', target.id)).total_items).toBe(1);
  });

  it('answers 409 already_following when a page creator follows their own page again', async () => {
    const { user, creds } = await createUserWithKey(server);
    const page = await newPage(user.id);
    const res = await follow({ followable_type: 'Page', followable_id: page.id, user_id: user.id }, creds);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_following');
    expect((await followsBetween(user.id, 'Page', page.id)).total_items).toBe(1);
  });

  it('refuses a user following themself with 422, and stores nothing', async () => {
    const { user, creds } = await createUserWithKey(server);
    const res = await follow({ followable_type: 'User', followable_id: user.id, user_id: user.id }, creds);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['followable_id']);
    expect((await listFollows(`user_id=${user.id}`)).total_items).toBe(0);
  });

  it('answers 422 naming each missing field and a bad followable_type, and stores nothing', async () => {
    const user = await createUser(server);
    const target = await createUser(server);
    const complete = { followable_type: 'User', followable_id: target.id, user_id: user.id };
    for (const field of ['followable_type', 'followable_id', 'user_id'] as const) {
      const body: Record<string, unknown> = { ...complete };
      delete body[field];
      const res = await follow(body);
      expect(res.status, field).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual([{ field, message: 'is required' }]);
    }
    for (const followable_type of ['Group', 'Event', '']) {
      const res = await follow({ ...complete, followable_type });
      expect(res.status, followable_type).toBe(422);
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['followable_type']);
    }
    expect((await listFollows(`user_id=${user.id}`)).total_items).toBe(0);
  });

  it('answers 404 for an unknown followable or follower, and stores nothing', async () => {
    const user = await createUser(server);
    const unknown = '0'.repeat(32);
    for (const body of [
      { followable_type: 'User', followable_id: unknown, user_id: user.id },
      { followable_type: 'Page', followable_id: unknown, user_id: user.id },
    ]) {
      const res = await follow(body);
      expect(res.status, body.followable_type).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await listFollows(`user_id=${user.id}`)).total_items).toBe(0);

    const target = await createUser(server);
    const noFollower = await follow({ followable_type: 'User', followable_id: target.id, user_id: unknown });
    expect(noFollower.status).toBe(404);
    expect(noFollower.body.error.code).toBe('not_found');
    expect((await listFollows(`followable_type=User&followable_id=${target.id}`)).total_items).toBe(0);
  });

  it('refuses a Member following a private page with 403 access_request_required, and stores nothing', async () => {
    const owner = await createUser(server);
    const page = await newPage(owner.id, 'private');
    const { user, creds } = await createUserWithKey(server);
    const res = await follow({ followable_type: 'Page', followable_id: page.id, user_id: user.id }, creds);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('access_request_required');
    expect((await followsBetween(user.id, 'Page', page.id)).total_items).toBe(0);
  });

  it('answers 404 to a Member following a secret page they are not in, and stores nothing', async () => {
    const owner = await createUser(server);
    const page = await newPage(owner.id, 'secret');
    const { user, creds } = await createUserWithKey(server);
    const res = await follow({ followable_type: 'Page', followable_id: page.id, user_id: user.id }, creds);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await followsBetween(user.id, 'Page', page.id)).total_items).toBe(0);
  });

  it('lets an Admin make a follow for a user on a private or a secret page', async () => {
    const owner = await createUser(server);
    const user = await createUser(server);
    for (const privacy of ['private', 'secret']) {
      const page = await newPage(owner.id, privacy);
      const res = await follow({ followable_type: 'Page', followable_id: page.id, user_id: user.id });
      expect(res.status, privacy).toBe(201);
      expect(res.body.user_id).toBe(user.id);
      expect((await followsBetween(user.id, 'Page', page.id)).total_items).toBe(1);
    }
  });

  it('refuses a Member making a follow for another user with 403, and stores nothing', async () => {
    const { creds } = await createUserWithKey(server);
    const other = await createUser(server);
    const target = await createUser(server);
    const res = await follow({ followable_type: 'User', followable_id: target.id, user_id: other.id }, creds);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await listFollows(`user_id=${other.id}`)).total_items).toBe(0);
  });

  it('answers 20 concurrent identical follows with one 201 and 409s, leaving one record', async () => {
    const { user, creds } = await createUserWithKey(server);
    const owner = await createUser(server);
    const page = await newPage(owner.id);
    // One call first, so that all 20 share the verified key.
    expect((await call(server, 'GET', '/follows?per_page=1', { as: creds })).status).toBe(200);
    const body = { followable_type: 'Page', followable_id: page.id, user_id: user.id };
    const results = await Promise.all(Array.from({ length: 20 }, () => follow(body, creds)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('already_following');
    expect((await followsBetween(user.id, 'Page', page.id)).total_items).toBe(1);
  });
});

describe('GET /follows', () => {
  it('embeds the followed page or user', async () => {
    const user = await createUser(server);
    const target = await createUser(server);
    const owner = await createUser(server);
    const page = await newPage(owner.id);
    await follow({ followable_type: 'User', followable_id: target.id, user_id: user.id });
    await follow({ followable_type: 'Page', followable_id: page.id, user_id: user.id });

    const listed = await listFollows(`user_id=${user.id}`);
    expect(listed.total_items).toBe(2);
    const ofUser = listed.items.find((f) => f.followable_type === 'User')!;
    const ofPage = listed.items.find((f) => f.followable_type === 'Page')!;
    expect(ofUser.followable).toMatchObject({ id: target.id, nickname: target.nickname, slug: target.slug });
    expect(ofPage.followable).toEqual(page);
  });

  it('shows the email of an embedded user only to that user and to Admins', async () => {
    const { user: target, creds: targetCreds } = await createUserWithKey(server);
    const { user: fan, creds: fanCreds } = await createUserWithKey(server);
    await follow({ followable_type: 'User', followable_id: target.id, user_id: fan.id }, fanCreds);
    const query = `followable_type=User&followable_id=${target.id}`;
    expect((await listFollows(query, fanCreds)).items[0]!.followable).not.toHaveProperty('email');
    expect((await listFollows(query, targetCreds)).items[0]!.followable).toHaveProperty('email', target.email);
    expect((await listFollows(query)).items[0]!.followable).toHaveProperty('email', target.email);
  });

  it('filters by followable_type, followable_id and user_id, exactly', async () => {
    const ada = await createUser(server);
    const bob = await createUser(server);
    const cyd = await createUser(server);
    const page = await newPage(cyd.id);
    await follow({ followable_type: 'User', followable_id: cyd.id, user_id: ada.id });
    await follow({ followable_type: 'User', followable_id: cyd.id, user_id: bob.id });
    await follow({ followable_type: 'Page', followable_id: page.id, user_id: ada.id });
    await follow({ followable_type: 'User', followable_id: bob.id, user_id: ada.id });

    const adaAll = await listFollows(`user_id=${ada.id}`);
    expect(adaAll.total_items).toBe(3);
    const adaUsers = await listFollows(`user_id=${ada.id}&followable_type=User`);
    expect(adaUsers.items.map((f) => f.followable_id).sort()).toEqual([bob.id, cyd.id].sort());
    expect(adaUsers.total_items).toBe(2);
    const adaPages = await listFollows(`user_id=${ada.id}&followable_type=Page`);
    expect(adaPages.items.map((f) => f.followable_id)).toEqual([page.id]);

    const followersOfCyd = await listFollows(`followable_type=User&followable_id=${cyd.id}`);
    expect(followersOfCyd.items.map((f) => f.user_id).sort()).toEqual([ada.id, bob.id].sort());
    expect(followersOfCyd.total_items).toBe(2);
    // The creator's follow and Ada's.
    const followersOfPage = await listFollows(`followable_id=${page.id}`);
    expect(followersOfPage.items.map((f) => f.user_id).sort()).toEqual([ada.id, cyd.id].sort());
    // A user id is not a page id.
    expect((await listFollows(`followable_type=Page&followable_id=${cyd.id}`)).total_items).toBe(0);

    // Exact match: a prefix or another case matches nothing.
    expect((await listFollows(`user_id=${ada.id.slice(0, 31)}`)).total_items).toBe(0);
    expect((await listFollows(`followable_id=${cyd.id.slice(1)}`)).total_items).toBe(0);
    expect((await listFollows(`user_id=${ada.id.toUpperCase()}`)).total_items).toBe(0);
  });

  it('answers 400 for a followable_type filter that is not Page or User', async () => {
    const res = await call(server, 'GET', '/follows?followable_type=Group');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_query');
  });

  it('pages through follows: full pages, the last partial page, beyond the end, per_page over 100', async () => {
    const user = await createUser(server);
    const targets: string[] = [];
    for (let i = 0; i < 5; i++) {
      const target = await createUser(server);
      targets.push(target.id);
      expect((await follow({ followable_type: 'User', followable_id: target.id, user_id: user.id })).status).toBe(201);
    }
    const q = `user_id=${user.id}&per_page=2`;
    const pages = [await listFollows(`${q}&page=1`), await listFollows(`${q}&page=2`), await listFollows(`${q}&page=3`)];
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    for (const p of pages) expect(p.total_items).toBe(5);
    expect(pages.flatMap((p) => p.items.map((f) => f.followable_id)).sort()).toEqual([...targets].sort());
    expect(await listFollows(`${q}&page=4`)).toEqual({ items: [], total_items: 5 });

    for (const query of ['per_page=101', 'per_page=0', 'page=0']) {
      const res = await call(server, 'GET', `/follows?user_id=${user.id}&${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
  });

  it('hides the follows of a secret page from outsiders, and shows them to its members and Admins', async () => {
    const { user: owner, creds: ownerCreds } = await createUserWithKey(server);
    const { creds: outsider } = await createUserWithKey(server);
    const { user: member, creds: memberCreds } = await createUserWithKey(server);
    const secret = await newPage(owner.id, 'secret');
    expect((await follow({ followable_type: 'Page', followable_id: secret.id, user_id: member.id })).status).toBe(201);

    const query = `followable_type=Page&followable_id=${secret.id}`;
    expect(await listFollows(query, outsider)).toEqual({ items: [], total_items: 0 });
    expect(await listFollows(`followable_id=${secret.id}`, outsider)).toEqual({ items: [], total_items: 0 });
    expect(await listFollows(`user_id=${owner.id}`, outsider)).toEqual({ items: [], total_items: 0 });
    expect(await listFollows(`user_id=${member.id}`, outsider)).toEqual({ items: [], total_items: 0 });

    for (const as of [ownerCreds, memberCreds, server.admin]) {
      const listed = await listFollows(query, as);
      expect(listed.total_items).toBe(2);
      expect(listed.items.map((f) => f.user_id).sort()).toEqual([owner.id, member.id].sort());
      expect(listed.items[0]!.followable).toEqual(secret);
    }
    // One follow by its id: as the list shows it, to whom it shows it.
    const memberFollow = (await listFollows(`${query}&user_id=${member.id}`, server.admin)).items[0]!;
    expect((await call(server, 'GET', `/follows/${memberFollow.id}`, { as: outsider })).status).toBe(404);
    for (const as of [ownerCreds, memberCreds, server.admin]) {
      const got = await call(server, 'GET', `/follows/${memberFollow.id}`, { as });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(memberFollow);
    }
    expect((await call(server, 'GET', `/follows/${'0'.repeat(32)}`)).status).toBe(404);
    // The unfollow is as hidden: 404 to the outsider, not 403.
    expect((await call(server, 'DELETE', `/follows/${memberFollow.id}`, { as: outsider })).status).toBe(404);
  });
});

describe('DELETE /follows/{id}', () => {
  it('lets the follower unfollow: 204, and the follow is gone', async () => {
    const { user, creds } = await createUserWithKey(server);
    const target = await createUser(server);
    const made = await follow({ followable_type: 'User', followable_id: target.id, user_id: user.id }, creds);
    const res = await call(server, 'DELETE', `/follows/${made.body.id}`, { as: creds });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await followsBetween(user.id, 'User', target.id)).total_items).toBe(0);

    const again = await call(server, 'DELETE', `/follows/${made.body.id}`, { as: creds });
    expect(again.status).toBe(404);
    // Following again after unfollowing works.
    expect((await follow({ followable_type: 'User', followable_id: target.id, user_id: user.id }, creds)).status).toBe(
      201,
    );
  });

  it('refuses anyone but the follower with 403 and keeps the follow', async () => {
    const user = await createUser(server);
    const target = await createUser(server);
    const { creds: stranger } = await createUserWithKey(server);
    const made = await follow({ followable_type: 'User', followable_id: target.id, user_id: user.id });
    const res = await call(server, 'DELETE', `/follows/${made.body.id}`, { as: stranger });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await followsBetween(user.id, 'User', target.id)).total_items).toBe(1);
  });

  it('answers 404 to an outsider deleting a follow of a secret page, and keeps it', async () => {
    const owner = await createUser(server);
    const member = await createUser(server);
    const { creds: outsider } = await createUserWithKey(server);
    const secret = await newPage(owner.id, 'secret');
    const made = await follow({ followable_type: 'Page', followable_id: secret.id, user_id: member.id });
    const res = await call(server, 'DELETE', `/follows/${made.body.id}`, { as: outsider });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await followsBetween(member.id, 'Page', secret.id)).total_items).toBe(1);
  });

  it('lets an Admin remove any follow', async () => {
    const user = await createUser(server);
    const target = await createUser(server);
    const made = await follow({ followable_type: 'User', followable_id: target.id, user_id: user.id });
    expect((await call(server, 'DELETE', `/follows/${made.body.id}`)).status).toBe(204);
    expect((await followsBetween(user.id, 'User', target.id)).total_items).toBe(0);
  });

  it('answers 404 for an unknown follow', async () => {
    const res = await call(server, 'DELETE', `/follows/${'0'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
