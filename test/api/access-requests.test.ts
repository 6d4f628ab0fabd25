import { beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser, createUserWithKey, HEX_ID, ISO } from '../helpers/api.js';
import { useServer, type Credentials } from '../helpers/server.js';

const server = useServer();
let configId: string;
beforeAll(async () => {
  configId = (await createPageConfiguration(server)).id;
});

const UNKNOWN = '0'.repeat(32);

interface AccessRequest {
  id: string;
  page_id: string;
  user_id: string;
  page: { id: string; privacy: string; user_id: string; [k: string]: unknown };
  user: { id: string; [k: string]: unknown };
  is_validate: boolean;
  state: 'waiting' | 'accepted';
  created_at: string;
  updated_at: string;
}
/** A body that is either the record or the error envelope. */
type Answer<T> = T & { error: { code: string; message: string; fields?: { field: string; message: string }[] } };
interface List<T> {
  items: T[];
  total_items: number;
}

/** A page created by `ownerId` (acting for themself when `as` is their key, else through the Admin). */
const newPage = (ownerId: string, privacy = 'private', as?: Credentials) =>
  createPage(server, { user_id: ownerId, page_configuration_id: configId, privacy }, as);

const ask = (page_id: unknown, user_id: unknown, as?: Credentials) =>
  call<Answer<AccessRequest>>(server, 'POST', '/page_access_requests', { as, body: { page_id, user_id } });
const accept = (id: string, as?: Credentials) => call<Answer<AccessRequest>>(server, 'PUT', `/page_access_requests/${id}/accept`, { as });
const refuse = (id: string, as?: Credentials) => call(server, 'PUT', `/page_access_requests/${id}/refuse`, { as });

/** GET a list (as the Admin, who sees every request, by default) and insist on 200. */
async function list(path: string, as?: Credentials): Promise<List<AccessRequest>> {
  const res = await call<List<AccessRequest>>(server, 'GET', path, { as });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  expect(res.body.items.length).toBeLessThanOrEqual(res.body.total_items);
  return res.body;
}
const requestsOf = (pageId: string, userId: string) => list(`/page_access_requests?page_id=${pageId}&user_id=${userId}`);
const ids = (l: List<{ id: string }>) => l.items.map((r) => r.id).sort();

/** The follows of a user for a page, as the Admin. */
async function follows(userId: string, pageId: string): Promise<number> {
  const res = await call(server, 'GET', `/follows?followable_type=Page&followable_id=${pageId}&user_id=${userId}`);
  expect(res.status).toBe(200);
  for (const f of res.body.items) expect(f).toMatchObject({ user_id: userId, followable_type: 'Page', followable_id: pageId });
  return res.body.total_items;
}

/** The Admin makes the user follow the page (membership without a request). */
async function makeMember(userId: string, pageId: string) {
  const res = await call(server, 'POST', '/follows', {
    body: { followable_type: 'Page', followable_id: pageId, user_id: userId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** An owner (a Member with a key) and a private page they created. */
async function ownedPage(privacy = 'private') {
  const owner = await createUserWithKey(server);
  const page = await newPage(owner.user.id, privacy, owner.creds);
  return { owner, page };
}

describe('POST /page_access_requests', () => {
  it('creates a waiting request on a private page, embedding the page and the user', async () => {
    const { page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const res = await ask(page.id, user.id, creds);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ page_id: page.id, user_id: user.id, state: 'waiting', is_validate: false });
    expect(res.body.id).toMatch(HEX_ID);
    expect(res.body.page).toMatchObject({ id: page.id, privacy: 'private', slug: page.slug });
    expect(res.body.user).toMatchObject({ id: user.id, nickname: user.nickname });
    expect(res.body.user).not.toHaveProperty('password');
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);

    const stored = await requestsOf(page.id, user.id);
    expect(stored.total_items).toBe(1);
    expect(stored.items[0]).toEqual(res.body);
    // Asking is not joining.
    expect(await follows(user.id, page.id)).toBe(0);
  });

  it('takes form and multipart bodies, and ids sent as numbers are read as identifiers', async () => {
    for (const kind of ['form', 'multipart'] as const) {
      const { page } = await ownedPage();
      const { user, creds } = await createUserWithKey(server);
      const res = await call(server, 'POST', '/page_access_requests', { as: creds, kind, body: { page_id: page.id, user_id: user.id } });
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body).toMatchObject({ page_id: page.id, user_id: user.id, state: 'waiting' });
    }
    const user = await createUser(server);
    const numeric = await ask(424242, user.id);
    expect(numeric.status).toBe(404);
    expect(numeric.body.error.code).toBe('not_found');
  });

  it('rule 1: a second request while one is waiting → 409 access_request_pending, one record', async () => {
    const { page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const first = await ask(page.id, user.id, creds);
    expect(first.status).toBe(201);
    const again = await ask(page.id, user.id, creds);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('access_request_pending');
    // The Admin asking for the user meets the same rule.
    const byAdmin = await ask(page.id, user.id);
    expect(byAdmin.status).toBe(409);
    expect(byAdmin.body.error.code).toBe('access_request_pending');
    const stored = await requestsOf(page.id, user.id);
    expect(ids(stored)).toEqual([first.body.id]);
    expect(stored.items[0]!.state).toBe('waiting');
  });

  it('rule 2: the creator, or a user already following, → 409 already_member, nothing stored', async () => {
    const { owner, page } = await ownedPage();
    const own = await ask(page.id, owner.user.id, owner.creds);
    expect(own.status).toBe(409);
    expect(own.body.error.code).toBe('already_member');
    expect((await requestsOf(page.id, owner.user.id)).total_items).toBe(0);

    const { user, creds } = await createUserWithKey(server);
    await makeMember(user.id, page.id);
    const member = await ask(page.id, user.id, creds);
    expect(member.status).toBe(409);
    expect(member.body.error.code).toBe('already_member');
    expect((await requestsOf(page.id, user.id)).total_items).toBe(0);
  });

  it('rule 2 after an accepted request: the new member may not ask again', async () => {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const first = await ask(page.id, user.id, creds);
    expect((await accept(first.body.id, owner.creds)).status).toBe(200);
    const again = await ask(page.id, user.id, creds);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_member');
    expect(ids(await requestsOf(page.id, user.id))).toEqual([first.body.id]);
  });

  it('a member who left the page may ask again: rule 2 is about membership, not history', async () => {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const first = (await ask(page.id, user.id, creds)).body;
    expect((await accept(first.id, owner.creds)).status).toBe(200);
    const mine = await call(server, 'GET', `/follows?followable_type=Page&followable_id=${page.id}&user_id=${user.id}`);
    expect(mine.body.items).toHaveLength(1);
    expect((await call(server, 'DELETE', `/follows/${mine.body.items[0].id}`, { as: creds })).status).toBe(204);
    expect(await follows(user.id, page.id)).toBe(0);

    const again = await ask(page.id, user.id, creds);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body).toMatchObject({ state: 'waiting', is_validate: false });
    const all = await requestsOf(page.id, user.id);
    expect(all.items.map((r) => [r.id, r.state]).sort()).toEqual(
      [
        [first.id, 'accepted'],
        [again.body.id, 'waiting'],
      ].sort(),
    );
  });

  it('a secret page is 404 to a non-member, and nothing is stored', async () => {
    const { page } = await ownedPage('secret');
    const { user, creds } = await createUserWithKey(server);
    const res = await ask(page.id, user.id, creds);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await requestsOf(page.id, user.id)).total_items).toBe(0);
    // And a member of the secret page (who can see it) meets rule 2.
    const { user: member, creds: memberCreds } = await createUserWithKey(server);
    await makeMember(member.id, page.id);
    const asMember = await ask(page.id, member.id, memberCreds);
    expect(asMember.status).toBe(409);
    expect(asMember.body.error.code).toBe('already_member');
  });

  it('a Member asking for someone else → 403 forbidden, nothing stored; an Admin may', async () => {
    const { page } = await ownedPage();
    const { creds } = await createUserWithKey(server);
    const other = await createUser(server);
    const res = await ask(page.id, other.id, creds);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await requestsOf(page.id, other.id)).total_items).toBe(0);

    const byAdmin = await ask(page.id, other.id);
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body).toMatchObject({ user_id: other.id, page_id: page.id, state: 'waiting' });
  });

  it('an unknown page or user → 404 not_found, nothing stored', async () => {
    const { user, creds } = await createUserWithKey(server);
    const noPage = await ask(UNKNOWN, user.id, creds);
    expect(noPage.status).toBe(404);
    expect(noPage.body.error.code).toBe('not_found');
    expect((await list(`/page_access_requests?user_id=${user.id}`)).total_items).toBe(0);

    const { page } = await ownedPage();
    const noUser = await ask(page.id, UNKNOWN);
    expect(noUser.status).toBe(404);
    expect(noUser.body.error.code).toBe('not_found');
    expect((await list(`/pages/${page.id}/page_access_requests`)).total_items).toBe(0);
  });

  it('a missing field → 422 validation_failed naming it', async () => {
    const { page } = await ownedPage();
    const user = await createUser(server);
    for (const [field, body] of [
      ['page_id', { user_id: user.id }],
      ['user_id', { page_id: page.id }],
    ] as const) {
      const res = await call(server, 'POST', '/page_access_requests', { body });
      expect(res.status, field).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
    expect((await list(`/pages/${page.id}/page_access_requests`)).total_items).toBe(0);
  });
});

describe('listing access requests', () => {
  /** Owner with two private pages; A asks both, B asks the first and is accepted; C asks the first. */
  async function scene() {
    const { owner, page: p1 } = await ownedPage();
    const p2 = await newPage(owner.user.id, 'private', owner.creds);
    const a = await createUserWithKey(server);
    const b = await createUserWithKey(server);
    const c = await createUserWithKey(server);
    const a1 = (await ask(p1.id, a.user.id, a.creds)).body;
    const a2 = (await ask(p2.id, a.user.id, a.creds)).body;
    const b1 = (await ask(p1.id, b.user.id, b.creds)).body;
    const c1 = (await ask(p1.id, c.user.id, c.creds)).body;
    for (const r of [a1, a2, b1, c1]) expect(r.id).toMatch(HEX_ID);
    expect((await accept(b1.id, owner.creds)).status).toBe(200);
    return { owner, p1, p2, a, b, c, a1, a2, b1, c1 };
  }

  it('GET /page_access_requests filters by page_id, user_id and state', async () => {
    const s = await scene();
    const byPage = await list(`/page_access_requests?page_id=${s.p1.id}`);
    expect(byPage.total_items).toBe(3);
    expect(ids(byPage)).toEqual([s.a1.id, s.b1.id, s.c1.id].sort());
    for (const r of byPage.items) {
      expect(r.page_id).toBe(s.p1.id);
      expect(r.page.id).toBe(s.p1.id);
      expect(r.user.id).toBe(r.user_id);
    }

    const byUser = await list(`/page_access_requests?user_id=${s.a.user.id}`);
    expect(ids(byUser)).toEqual([s.a1.id, s.a2.id].sort());
    expect(byUser.total_items).toBe(2);

    const waiting = await list(`/page_access_requests?page_id=${s.p1.id}&state=waiting`);
    expect(ids(waiting)).toEqual([s.a1.id, s.c1.id].sort());
    expect(waiting.items.every((r) => r.state === 'waiting' && r.is_validate === false)).toBe(true);

    const accepted = await list(`/page_access_requests?page_id=${s.p1.id}&state=accepted`);
    expect(ids(accepted)).toEqual([s.b1.id]);
    expect(accepted.items[0]).toMatchObject({ state: 'accepted', is_validate: true, user_id: s.b.user.id });

    // state alone, across the whole store.
    const allAccepted = await list(`/page_access_requests?state=accepted&per_page=100`);
    expect(allAccepted.items.every((r) => r.state === 'accepted')).toBe(true);
    expect(allAccepted.items.map((r) => r.id)).toContain(s.b1.id);
    const allWaiting = await list(`/page_access_requests?state=waiting&per_page=100`);
    expect(allWaiting.items.every((r) => r.state === 'waiting')).toBe(true);
    expect(allWaiting.items.map((r) => r.id)).not.toContain(s.b1.id);

    const combined = await list(`/page_access_requests?user_id=${s.a.user.id}&page_id=${s.p2.id}&state=waiting`);
    expect(ids(combined)).toEqual([s.a2.id]);
    const none = await list(`/page_access_requests?user_id=${s.a.user.id}&state=accepted`);
    expect(none).toEqual({ items: [], total_items: 0 });
  });

  it('GET /pages/{id}/page_access_requests takes the page from the path and filters by user_id and state', async () => {
    const s = await scene();
    const all = await list(`/pages/${s.p1.id}/page_access_requests`);
    expect(ids(all)).toEqual([s.a1.id, s.b1.id, s.c1.id].sort());
    expect(all.total_items).toBe(3);
    const other = await list(`/pages/${s.p2.id}/page_access_requests`);
    expect(ids(other)).toEqual([s.a2.id]);

    expect(ids(await list(`/pages/${s.p1.id}/page_access_requests?user_id=${s.b.user.id}`))).toEqual([s.b1.id]);
    expect(ids(await list(`/pages/${s.p1.id}/page_access_requests?state=waiting`))).toEqual([s.a1.id, s.c1.id].sort());
    expect(ids(await list(`/pages/${s.p1.id}/page_access_requests?state=accepted`))).toEqual([s.b1.id]);
    expect(ids(await list(`/pages/${s.p2.id}/page_access_requests?user_id=${s.b.user.id}`))).toEqual([]);
    // The creator sees their page's requests too.
    expect(ids(await list(`/pages/${s.p1.id}/page_access_requests`, s.owner.creds))).toEqual(ids(all));
  });

  it('a bad state → 400 invalid_query on both routes', async () => {
    const { page } = await ownedPage();
    for (const path of [
      '/page_access_requests?state=refused',
      '/page_access_requests?state=bogus',
      `/pages/${page.id}/page_access_requests?state=refused`,
      `/pages/${page.id}/page_access_requests?state=`,
    ]) {
      const res = await call(server, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('invalid_query');
    }
  });

  it('an unknown page, or a secret page to an outsider, → 404 on the page route', async () => {
    const { creds } = await createUserWithKey(server);
    const unknown = await call(server, 'GET', `/pages/${UNKNOWN}/page_access_requests`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const { page } = await ownedPage('secret');
    const hidden = await call(server, 'GET', `/pages/${page.id}/page_access_requests`, { as: creds });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
  });

  it('paginates with page and per_page', async () => {
    const s = await scene();
    const pages = await Promise.all(
      [1, 2].map((n) => list(`/pages/${s.p1.id}/page_access_requests?per_page=2&page=${n}`)),
    );
    expect(pages.map((p) => p.total_items)).toEqual([3, 3]);
    expect(pages.map((p) => p.items.length)).toEqual([2, 1]);
    const seen = pages.flatMap((p) => p.items.map((r) => r.id));
    expect([...seen].sort()).toEqual([s.a1.id, s.b1.id, s.c1.id].sort());
    const beyond = await list(`/pages/${s.p1.id}/page_access_requests?per_page=2&page=3`);
    expect(beyond).toEqual({ items: [], total_items: 3 });
    const filtered = await list(`/page_access_requests?user_id=${s.a.user.id}&per_page=1&page=2`);
    expect(filtered.total_items).toBe(2);
    expect(filtered.items).toHaveLength(1);
    for (const bad of ['per_page=101', 'per_page=0', 'page=0', 'page=x']) {
      const res = await call(server, 'GET', `/page_access_requests?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
  });

  it('a Member sees only their own requests and those to pages they created', async () => {
    const s = await scene();
    // The requester: their two requests, nothing of B's or C's.
    const mine = await list('/page_access_requests?per_page=100', s.a.creds);
    expect(ids(mine)).toEqual([s.a1.id, s.a2.id].sort());
    expect(mine.total_items).toBe(2);
    expect(ids(await list(`/pages/${s.p1.id}/page_access_requests`, s.a.creds))).toEqual([s.a1.id]);
    expect(ids(await list(`/page_access_requests?user_id=${s.b.user.id}`, s.a.creds))).toEqual([]);

    // The creator of the pages: every request to them.
    const owned = await list('/page_access_requests?per_page=100', s.owner.creds);
    expect(ids(owned)).toEqual([s.a1.id, s.a2.id, s.b1.id, s.c1.id].sort());

    // B is now a member of p1 (not its creator): still only their own request.
    expect(ids(await list(`/pages/${s.p1.id}/page_access_requests`, s.b.creds))).toEqual([s.b1.id]);

    // A stranger sees none of them.
    const stranger = await createUserWithKey(server);
    expect(await list('/page_access_requests?per_page=100', stranger.creds)).toEqual({ items: [], total_items: 0 });
    expect(await list(`/pages/${s.p1.id}/page_access_requests`, stranger.creds)).toEqual({ items: [], total_items: 0 });
  });
});

describe('PUT /page_access_requests/{id}/accept', () => {
  it('the page creator (a Member) accepts: is_validate true, state accepted, and the user follows the page', async () => {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const created = (await ask(page.id, user.id, creds)).body;
    const res = await accept(created.id, owner.creds);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      page_id: page.id,
      user_id: user.id,
      is_validate: true,
      state: 'accepted',
    });
    expect(res.body.page.id).toBe(page.id);
    expect(res.body.user.id).toBe(user.id);
    expect(res.body.created_at).toBe(created.created_at);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect(await follows(user.id, page.id)).toBe(1);
    const stored = await requestsOf(page.id, user.id);
    expect(stored.items).toHaveLength(1);
    expect(stored.items[0]).toMatchObject({ id: created.id, state: 'accepted', is_validate: true });
  });

  it('a secret page is joined by invite only: even an Admin asking for a user → 403, nothing stored', async () => {
    const { page } = await ownedPage('secret');
    const user = await createUser(server);
    const res = await ask(page.id, user.id);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toMatch(/invite only/);
    expect((await requestsOf(page.id, user.id)).total_items).toBe(0);
    expect(await follows(user.id, page.id)).toBe(0);
  });

  it('a non-administrator, even a member of the page or the requester, → 403 and nothing changes', async () => {
    const { page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const created = (await ask(page.id, user.id, creds)).body;
    const member = await createUserWithKey(server);
    await makeMember(member.user.id, page.id);

    for (const as of [member.creds, creds]) {
      const res = await accept(created.id, as);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    const stored = await requestsOf(page.id, user.id);
    expect(stored.items[0]).toMatchObject({ id: created.id, state: 'waiting', is_validate: false });
    expect(stored.items[0]!.updated_at).toBe(created.updated_at);
    expect(await follows(user.id, page.id)).toBe(0);
  });

  it('accepting twice → 409 already_accepted, one follow', async () => {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const created = (await ask(page.id, user.id, creds)).body;
    expect((await accept(created.id, owner.creds)).status).toBe(200);
    const accepted = (await requestsOf(page.id, user.id)).items[0]!;
    for (const as of [owner.creds, undefined]) {
      const again = await accept(created.id, as);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('already_accepted');
    }
    expect(await follows(user.id, page.id)).toBe(1);
    expect((await requestsOf(page.id, user.id)).items).toEqual([accepted]);
  });

  it('an unknown id → 404', async () => {
    const res = await accept(UNKNOWN);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('PUT /page_access_requests/{id}/refuse', () => {
  it('the page creator refuses: 204, the record is gone, no follow', async () => {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const created = (await ask(page.id, user.id, creds)).body;
    const res = await refuse(created.id, owner.creds);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();

    expect((await requestsOf(page.id, user.id)).total_items).toBe(0);
    expect(ids(await list(`/pages/${page.id}/page_access_requests`))).not.toContain(created.id);
    expect(ids(await list(`/page_access_requests?user_id=${user.id}`, creds))).toEqual([]);
    expect(await follows(user.id, page.id)).toBe(0);

    const acceptAfter = await accept(created.id, owner.creds);
    expect(acceptAfter.status).toBe(404);
    expect(acceptAfter.body.error.code).toBe('not_found');
    const refuseAfter = await refuse(created.id);
    expect(refuseAfter.status).toBe(404);
    expect(refuseAfter.body.error.code).toBe('not_found');
  });

  it('an Admin refuses too', async () => {
    const { page } = await ownedPage();
    const user = await createUser(server);
    const created = (await ask(page.id, user.id)).body;
    expect((await refuse(created.id)).status).toBe(204);
    expect((await requestsOf(page.id, user.id)).total_items).toBe(0);
  });

  it('a non-administrator (a member of the page, or the requester) → 403 and the request stays', async () => {
    const { page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const created = (await ask(page.id, user.id, creds)).body;
    const member = await createUserWithKey(server);
    await makeMember(member.user.id, page.id);
    for (const as of [member.creds, creds]) {
      const res = await refuse(created.id, as);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    const stored = await requestsOf(page.id, user.id);
    expect(stored.items).toHaveLength(1);
    expect(stored.items[0]).toMatchObject({ id: created.id, state: 'waiting' });
  });

  it('refusing an accepted request → 409 already_accepted, the request and the follow stay', async () => {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const created = (await ask(page.id, user.id, creds)).body;
    expect((await accept(created.id, owner.creds)).status).toBe(200);
    const res = await refuse(created.id, owner.creds);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_accepted');
    const stored = await requestsOf(page.id, user.id);
    expect(stored.items[0]).toMatchObject({ id: created.id, state: 'accepted', is_validate: true });
    expect(await follows(user.id, page.id)).toBe(1);
  });

  it('after a refusal the user can ask again: a new waiting request', async () => {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const first = (await ask(page.id, user.id, creds)).body;
    expect((await refuse(first.id, owner.creds)).status).toBe(204);
    const second = await ask(page.id, user.id, creds);
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.id);
    expect(second.body).toMatchObject({ state: 'waiting', is_validate: false });
    expect(ids(await requestsOf(page.id, user.id))).toEqual([second.body.id]);
    // And that one can be accepted.
    expect((await accept(second.body.id, owner.creds)).status).toBe(200);
    expect(await follows(user.id, page.id)).toBe(1);
  });
});

describe('concurrency', () => {
  it('20 concurrent identical requests → one 201, nineteen 409 access_request_pending, one record', async () => {
    const { page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const answers = await Promise.all(Array.from({ length: 20 }, () => ask(page.id, user.id, creds)));
    const created = answers.filter((r) => r.status === 201);
    const refused = answers.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(refused).toHaveLength(19);
    for (const r of refused) expect(r.body.error.code).toBe('access_request_pending');
    expect(ids(await requestsOf(page.id, user.id))).toEqual([created[0]!.body.id]);
  });

  it('two administrators accepting the same request at once → one 200, one 409, exactly one follow', async () => {
    for (let round = 0; round < 3; round++) {
      const { owner, page } = await ownedPage();
      const { user, creds } = await createUserWithKey(server);
      const created = (await ask(page.id, user.id, creds)).body;
      const answers = await Promise.all([accept(created.id, owner.creds), accept(created.id)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.body.error.code).toBe('already_accepted');
      expect(await follows(user.id, page.id)).toBe(1);
      expect((await requestsOf(page.id, user.id)).items[0]).toMatchObject({ state: 'accepted', is_validate: true });
    }
  });
});

describe('a user with both a waiting request and a waiting invite to one page', () => {
  /** The user asks to join the owner's private page, and the owner invites them: both wait. */
  async function both() {
    const { owner, page } = await ownedPage();
    const { user, creds } = await createUserWithKey(server);
    const request = (await ask(page.id, user.id, creds)).body;
    const created = await call(server, 'POST', '/invites', {
      as: owner.creds,
      body: { target_type: 'Page', target_id: page.id, user_id: owner.user.id, user_target_ids: [user.id] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return { owner, page, user, creds, request, invite: created.body.success[0] as { id: string } };
  }
  const acceptInvite = (id: string, as?: Credentials) => call<Answer<{ state: string }>>(server, 'PUT', `/invites/${id}/accept`, { as });
  /** What the user was told (the invite itself, then the join), and what the audit log holds about the two records. */
  async function told(userId: string, creds: Credentials) {
    const res = await call(server, 'GET', `/users/${userId}/notifications?per_page=100`, { as: creds });
    expect(res.status).toBe(200);
    return (res.body as { notification_type: string }[]).map((n) => n.notification_type).sort();
  }
  async function audited(...ids: string[]) {
    const res = await call(server, 'GET', '/audit_log?per_page=100');
    expect(res.status).toBe(200);
    return res.body.items.filter((e: { target_id: string }) => ids.includes(e.target_id)).map((e: { action: string }) => e.action).sort();
  }

  it('the request accepted first: accepting the invite is a 409 already_member that changes nothing; it can be refused', async () => {
    const { owner, user, creds, page, request, invite } = await both();
    expect((await accept(request.id, owner.creds)).status).toBe(200);
    const again = await acceptInvite(invite.id, owner.creds);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'already_member', message: 'This user is already in this page' });
    expect((await call(server, 'GET', `/invites/${invite.id}`)).body.state).toBe('waiting');
    expect(await told(user.id, creds)).toEqual(['invite', 'page_access_request_accepted']);
    expect(await audited(request.id, invite.id)).toEqual(['page_access_request.accept']);
    expect(await follows(user.id, page.id)).toBe(1);
    expect((await call(server, 'PUT', `/invites/${invite.id}/refuse`, { as: owner.creds })).body.state).toBe('refused');
  });

  it('the invite accepted first: accepting the request is a 409 already_member; it stays waiting until refused', async () => {
    const { owner, user, creds, page, request, invite } = await both();
    expect((await acceptInvite(invite.id, owner.creds)).status).toBe(200);
    const again = await accept(request.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_member');
    expect((await requestsOf(page.id, user.id)).items[0]).toMatchObject({ state: 'waiting', is_validate: false });
    expect(await told(user.id, creds)).toEqual(['invite', 'invite_accepted']);
    expect(await audited(request.id, invite.id)).toEqual(['invite.accept']);
    expect((await refuse(request.id, owner.creds)).status).toBe(204);
    expect(await follows(user.id, page.id)).toBe(1);
  });

  it('both accepted at once: one 200, one 409 already_member, one join told', async () => {
    for (let round = 0; round < 3; round++) {
      const { owner, user, creds, page, request, invite } = await both();
      const answers = await Promise.all([accept(request.id, owner.creds), acceptInvite(invite.id)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.body.error.code).toBe('already_member');
      expect((await told(user.id, creds)).filter((type: string) => type !== 'invite')).toHaveLength(1);
      expect(await follows(user.id, page.id)).toBe(1);
    }
  });
});
