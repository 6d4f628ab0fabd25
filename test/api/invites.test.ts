import { beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser, createUserWithKey, HEX_ID, ISO, type BodyKind } from '../helpers/api.js';
import { useServer, type Credentials } from '../helpers/server.js';

const server = useServer();
let configId: string;
beforeAll(async () => {
  configId = (await createPageConfiguration(server)).id;
});

const UNKNOWN = '0'.repeat(32);

interface Invite {
  id: string;
  target_type: 'Page';
  target_id: string;
  user_id: string;
  user_target_id: string;
  user: { id: string; [k: string]: unknown };
  user_target: { id: string; [k: string]: unknown };
  target: { id: string; [k: string]: unknown };
  is_accepted: boolean;
  is_validate: boolean | null;
  state: 'waiting' | 'accepted' | 'refused';
  created_at: string;
  updated_at: string;
}
interface Creation {
  success: Invite[];
  errors: Record<string, string>[];
}
/** A body that is either the record or the error envelope. */
type Answer<T> = T & { error: { code: string; message: string; fields?: { field: string; message: string }[] } };
interface List<T> {
  items: T[];
  total_items: number;
}

const newPage = (ownerId: string, privacy = 'private', as?: Credentials) =>
  createPage(server, { user_id: ownerId, page_configuration_id: configId, privacy }, as);

/** An owner (a Member with a key) and a page they created. */
async function ownedPage(privacy = 'private') {
  const owner = await createUserWithKey(server);
  const page = await newPage(owner.user.id, privacy, owner.creds);
  return { owner, page };
}

const invite = (
  fields: { target_id: unknown; user_id: unknown; user_target_ids: unknown; target_type?: unknown },
  as?: Credentials,
  kind?: BodyKind,
) => call<Answer<Creation>>(server, 'POST', '/invites', { as, kind, body: { target_type: 'Page', ...fields } });

/** Invites the users and insists that each one succeeded; answers the invites in order. */
async function inviteOk(pageId: string, senderId: string, targets: string[], as?: Credentials): Promise<Invite[]> {
  const res = await invite({ target_id: pageId, user_id: senderId, user_target_ids: targets }, as);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.errors).toEqual([]);
  expect(res.body.success.map((i) => i.user_target_id)).toEqual(targets);
  return res.body.success;
}

const acceptInvite = (id: string, as?: Credentials) => call<Answer<Invite>>(server, 'PUT', `/invites/${id}/accept`, { as });
const refuseInvite = (id: string, as?: Credentials) => call<Answer<Invite>>(server, 'PUT', `/invites/${id}/refuse`, { as });

async function list(path: string, as?: Credentials): Promise<List<Invite>> {
  const res = await call<List<Invite>>(server, 'GET', path, { as });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}
const ids = (l: List<{ id: string }>) => l.items.map((r) => r.id).sort();
/** Every invite of the user to the page, as the Admin. */
const invitesOf = (pageId: string, userId: string) => list(`/pages/${pageId}/invites?user_target_id=${userId}`);

/** The invite's own fields, without the embedded records (whose email only some callers see). */
const core = (inv: Invite | undefined) => {
  const { user, user_target, target, ...rest } = inv!;
  return { ...rest, user_id_embedded: user.id, user_target_id_embedded: user_target.id, target_id_embedded: target.id };
};

/** The invite as stored, read by the Admin, without its embedded records. */
async function stored(id: string) {
  const res = await call<Answer<Invite>>(server, 'GET', `/invites/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return core(res.body);
}

async function follows(userId: string, pageId: string): Promise<number> {
  const res = await call(server, 'GET', `/follows?followable_type=Page&followable_id=${pageId}&user_id=${userId}`);
  expect(res.status).toBe(200);
  for (const f of res.body.items) expect(f).toMatchObject({ user_id: userId, followable_type: 'Page', followable_id: pageId });
  return res.body.total_items;
}

async function makeMember(userId: string, pageId: string) {
  const res = await call(server, 'POST', '/follows', {
    body: { followable_type: 'Page', followable_id: pageId, user_id: userId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

describe('POST /invites', () => {
  it('invites several users: 200 with waiting records embedding sender, invitee and page', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const b = await createUser(server);
    const res = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id, b.id] }, owner.creds);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.success).toHaveLength(2);
    res.body.success.forEach((inv, i) => {
      const target = [a, b][i]!;
      expect(inv).toMatchObject({
        target_type: 'Page',
        target_id: page.id,
        user_id: owner.user.id,
        user_target_id: target.id,
        state: 'waiting',
        is_validate: null,
        is_accepted: false,
      });
      expect(inv.id).toMatch(HEX_ID);
      expect(inv.user).toMatchObject({ id: owner.user.id, nickname: owner.user.nickname });
      expect(inv.user_target).toMatchObject({ id: target.id, nickname: target.nickname });
      expect(inv.target).toMatchObject({ id: page.id, slug: page.slug, privacy: 'private' });
      expect(inv.created_at).toMatch(ISO);
      expect(inv.updated_at).toMatch(ISO);
      expect(inv).not.toHaveProperty('user_target_ids');
    });
    const listed = await list(`/pages/${page.id}/invites`);
    expect(ids(listed)).toEqual(res.body.success.map((i) => i.id).sort());
    expect(await stored(res.body.success[0]!.id)).toEqual(core(res.body.success[0]));
    // Being invited is not joining.
    expect(await follows(a.id, page.id)).toBe(0);
  });

  it('an already invited user lands in errors with exactly "User already invite", nothing stored', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [first] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    const again = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id] }, owner.creds);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: [], errors: [{ [a.id]: 'User already invite' }] });
    // Another sender (the Admin, or another member) meets the same rule.
    const byAdmin = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id] });
    expect(byAdmin.body).toEqual({ success: [], errors: [{ [a.id]: 'User already invite' }] });
    const member = await createUserWithKey(server);
    await makeMember(member.user.id, page.id);
    const byMember = await invite({ target_id: page.id, user_id: member.user.id, user_target_ids: [a.id] }, member.creds);
    expect(byMember.body).toEqual({ success: [], errors: [{ [a.id]: 'User already invite' }] });
    expect(ids(await invitesOf(page.id, a.id))).toEqual([first!.id]);
  });

  it('a member lands in errors with "User already member", an unknown id with "User not found"', async () => {
    const { owner, page } = await ownedPage();
    const member = await createUser(server);
    await makeMember(member.id, page.id);
    const res = await invite(
      { target_id: page.id, user_id: owner.user.id, user_target_ids: [member.id, owner.user.id, UNKNOWN] },
      owner.creds,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: [],
      errors: [{ [member.id]: 'User already member' }, { [owner.user.id]: 'User already member' }, { [UNKNOWN]: 'User not found' }],
    });
    expect(await list(`/pages/${page.id}/invites`)).toEqual({ items: [], total_items: 0 });
  });

  it('a mix in one call: each invitee settled on its own, in the order given', async () => {
    const { owner, page } = await ownedPage();
    const invited = await createUser(server);
    const [earlier] = await inviteOk(page.id, owner.user.id, [invited.id], owner.creds);
    const member = await createUser(server);
    await makeMember(member.id, page.id);
    const fresh1 = await createUser(server);
    const fresh2 = await createUser(server);
    const res = await invite(
      { target_id: page.id, user_id: owner.user.id, user_target_ids: [fresh1.id, invited.id, member.id, UNKNOWN, fresh2.id] },
      owner.creds,
    );
    expect(res.status).toBe(200);
    expect(res.body.success.map((i) => i.user_target_id)).toEqual([fresh1.id, fresh2.id]);
    expect(res.body.success.every((i) => i.state === 'waiting' && i.is_validate === null && i.is_accepted === false)).toBe(true);
    expect(res.body.errors).toEqual([
      { [invited.id]: 'User already invite' },
      { [member.id]: 'User already member' },
      { [UNKNOWN]: 'User not found' },
    ]);
    const all = await list(`/pages/${page.id}/invites`);
    expect(ids(all)).toEqual([earlier!.id, ...res.body.success.map((i) => i.id)].sort());
  });

  it('a user named twice in the same list is invited once, the second time is "User already invite"', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const res = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id, a.id] }, owner.creds);
    expect(res.status).toBe(200);
    expect(res.body.success.map((i) => i.user_target_id)).toEqual([a.id]);
    expect(res.body.errors).toEqual([{ [a.id]: 'User already invite' }]);
    expect((await invitesOf(page.id, a.id)).total_items).toBe(1);
  });

  it('a member of the page who did not create it may invite; an outsider → 403, nothing stored', async () => {
    const { page } = await ownedPage();
    const member = await createUserWithKey(server);
    await makeMember(member.user.id, page.id);
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, member.user.id, [a.id], member.creds);
    expect(sent!.user_id).toBe(member.user.id);

    const outsider = await createUserWithKey(server);
    const b = await createUser(server);
    const res = await invite({ target_id: page.id, user_id: outsider.user.id, user_target_ids: [b.id] }, outsider.creds);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await invitesOf(page.id, b.id)).total_items).toBe(0);
  });

  it('an outsider may not invite to a public page either (403)', async () => {
    const { page } = await ownedPage('public');
    const outsider = await createUserWithKey(server);
    const b = await createUser(server);
    const res = await invite({ target_id: page.id, user_id: outsider.user.id, user_target_ids: [b.id] }, outsider.creds);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await invitesOf(page.id, b.id)).total_items).toBe(0);
  });

  it('acting for someone else → 403, nothing stored; the Admin may send for the creator', async () => {
    const { owner, page } = await ownedPage();
    const member = await createUserWithKey(server);
    await makeMember(member.user.id, page.id);
    const a = await createUser(server);
    const res = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id] }, member.creds);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await invitesOf(page.id, a.id)).total_items).toBe(0);

    const [byAdmin] = await inviteOk(page.id, owner.user.id, [a.id]);
    expect(byAdmin!.user_id).toBe(owner.user.id);
  });

  it('a secret page is 404 to an outsider, an unknown page or sender 404, nothing stored', async () => {
    const { page } = await ownedPage('secret');
    const outsider = await createUserWithKey(server);
    const a = await createUser(server);
    const hidden = await invite({ target_id: page.id, user_id: outsider.user.id, user_target_ids: [a.id] }, outsider.creds);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
    expect((await invitesOf(page.id, a.id)).total_items).toBe(0);

    const noPage = await invite({ target_id: UNKNOWN, user_id: outsider.user.id, user_target_ids: [a.id] }, outsider.creds);
    expect(noPage.status).toBe(404);
    expect(noPage.body.error.code).toBe('not_found');
    const noSender = await invite({ target_id: page.id, user_id: UNKNOWN, user_target_ids: [a.id] });
    expect(noSender.status).toBe(404);
    expect(noSender.body.error.code).toBe('not_found');
    expect((await list(`/invites?user_target_id=${a.id}`)).total_items).toBe(0);
  });

  it('the creator of a secret page invites to it', async () => {
    const { owner, page } = await ownedPage('secret');
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    expect(sent!.target).toMatchObject({ id: page.id, privacy: 'secret' });
  });

  it('a bad target_type, empty or missing user_target_ids, missing target_id → 422 naming the field', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const cases: [string, Record<string, unknown>][] = [
      ['target_type', { target_type: 'Group', target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id] }],
      ['target_type', { target_type: '', target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id] }],
      ['user_target_ids', { target_id: page.id, user_id: owner.user.id, user_target_ids: [] }],
      ['user_target_ids', { target_id: page.id, user_id: owner.user.id }],
      ['target_id', { user_id: owner.user.id, user_target_ids: [a.id] }],
      ['user_id', { target_id: page.id, user_target_ids: [a.id] }],
    ];
    for (const [field, body] of cases) {
      const res = await call(server, 'POST', '/invites', { as: owner.creds, body: { target_type: 'Page', ...body } });
      expect(res.status, `${field}: ${JSON.stringify(body)}`).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields.map((f: { field: string }) => f.field.split('.')[0])).toContain(field);
    }
    expect(await list(`/pages/${page.id}/invites`)).toEqual({ items: [], total_items: 0 });
  });

  it('takes a urlencoded body with repeated user_target_ids (no brackets), and ids sent as numbers', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const b = await createUser(server);
    const form = new URLSearchParams([
      ['target_type', 'Page'],
      ['target_id', page.id],
      ['user_id', owner.user.id],
      ['user_target_ids', a.id],
      ['user_target_ids', b.id],
    ]);
    const res = await call<Answer<Creation>>(server, 'POST', '/invites', {
      as: owner.creds,
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success.map((i) => i.user_target_id)).toEqual([a.id, b.id]);
    expect(res.body.errors).toEqual([]);

    const numeric = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [424242] }, owner.creds);
    expect(numeric.status).toBe(200);
    expect(numeric.body).toEqual({ success: [], errors: [{ '424242': 'User not found' }] });
  });

  it('takes a form body with repeated user_target_ids[] and a multipart body with repeated user_target_ids', async () => {
    for (const kind of ['form', 'multipart'] as const) {
      const { owner, page } = await ownedPage();
      const a = await createUser(server);
      const b = await createUser(server);
      const res = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id, b.id] }, owner.creds, kind);
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.errors).toEqual([]);
      expect(res.body.success.map((i) => i.user_target_id)).toEqual([a.id, b.id]);
      // One invitee alone is still a list.
      const c = await createUser(server);
      const one = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [c.id] }, owner.creds, kind);
      expect(one.status, `${kind}: ${JSON.stringify(one.body)}`).toBe(200);
      expect(one.body.success.map((i) => i.user_target_id)).toEqual([c.id]);
      expect((await list(`/pages/${page.id}/invites`)).total_items).toBe(3);
    }
  });
});

describe('listing invites', () => {
  /**
   * Owner O creates a private page P and a public page Q. O invites A and B to P and A to Q; A's invite to P
   * is accepted and B's refused. S (a follower of Q) invites C to Q.
   */
  async function scene() {
    const { owner, page: p } = await ownedPage();
    const q = await newPage(owner.user.id, 'public', owner.creds);
    const a = await createUserWithKey(server);
    const b = await createUserWithKey(server);
    const c = await createUserWithKey(server);
    const s = await createUserWithKey(server);
    await makeMember(s.user.id, q.id);
    const [aP, bP] = await inviteOk(p.id, owner.user.id, [a.user.id, b.user.id], owner.creds);
    const [aQ] = await inviteOk(q.id, owner.user.id, [a.user.id], owner.creds);
    const [cQ] = await inviteOk(q.id, s.user.id, [c.user.id], s.creds);
    expect((await acceptInvite(aP!.id, owner.creds)).status).toBe(200);
    expect((await refuseInvite(bP!.id, owner.creds)).status).toBe(200);
    return { owner, p, q, a, b, c, s, aP: aP!, bP: bP!, aQ: aQ!, cQ: cQ! };
  }

  it('GET /invites filters by user_id (sent), user_target_id (received), state, target_type and target_id', async () => {
    const x = await scene();
    expect(ids(await list(`/invites?user_id=${x.owner.user.id}`))).toEqual([x.aP.id, x.bP.id, x.aQ.id].sort());
    expect(ids(await list(`/invites?user_id=${x.s.user.id}`))).toEqual([x.cQ.id]);
    const received = await list(`/invites?user_target_id=${x.a.user.id}`);
    expect(ids(received)).toEqual([x.aP.id, x.aQ.id].sort());
    expect(received.total_items).toBe(2);
    expect(ids(await list(`/invites?target_id=${x.q.id}`))).toEqual([x.aQ.id, x.cQ.id].sort());
    expect(ids(await list(`/invites?target_type=Page&target_id=${x.p.id}`))).toEqual([x.aP.id, x.bP.id].sort());

    const accepted = await list(`/invites?target_id=${x.p.id}&state=accepted`);
    expect(ids(accepted)).toEqual([x.aP.id]);
    expect(accepted.items[0]).toMatchObject({ state: 'accepted', is_validate: true, is_accepted: true });
    const refused = await list(`/invites?target_id=${x.p.id}&state=refused`);
    expect(ids(refused)).toEqual([x.bP.id]);
    expect(refused.items[0]).toMatchObject({ state: 'refused', is_validate: false, is_accepted: false });
    const waiting = await list(`/invites?user_id=${x.owner.user.id}&state=waiting`);
    expect(ids(waiting)).toEqual([x.aQ.id]);
    expect(waiting.items[0]).toMatchObject({ state: 'waiting', is_validate: null, is_accepted: false });

    for (const state of ['accepted', 'waiting', 'refused']) {
      const all = await list(`/invites?state=${state}&per_page=100`);
      expect(all.items.every((i) => i.state === state), state).toBe(true);
    }
    const everyPage = await list(`/invites?target_type=Page&user_target_id=${x.c.user.id}`);
    expect(ids(everyPage)).toEqual([x.cQ.id]);
  });

  it('GET /pages/{id}/invites takes the page from the path and filters by user_id, user_target_id and state', async () => {
    const x = await scene();
    const all = await list(`/pages/${x.p.id}/invites`);
    expect(ids(all)).toEqual([x.aP.id, x.bP.id].sort());
    expect(all.total_items).toBe(2);
    expect(ids(await list(`/pages/${x.q.id}/invites`))).toEqual([x.aQ.id, x.cQ.id].sort());
    expect(ids(await list(`/pages/${x.q.id}/invites?user_id=${x.s.user.id}`))).toEqual([x.cQ.id]);
    expect(ids(await list(`/pages/${x.q.id}/invites?user_id=${x.owner.user.id}`))).toEqual([x.aQ.id]);
    expect(ids(await list(`/pages/${x.p.id}/invites?user_target_id=${x.b.user.id}`))).toEqual([x.bP.id]);
    expect(ids(await list(`/pages/${x.p.id}/invites?state=refused`))).toEqual([x.bP.id]);
    expect(ids(await list(`/pages/${x.p.id}/invites?state=accepted`))).toEqual([x.aP.id]);
    expect(ids(await list(`/pages/${x.p.id}/invites?state=waiting`))).toEqual([]);
    expect(ids(await list(`/pages/${x.q.id}/invites?state=waiting&user_target_id=${x.c.user.id}`))).toEqual([x.cQ.id]);
  });

  it('bad filters → 400 invalid_query; an unknown page, or a secret one to an outsider, → 404', async () => {
    const { page } = await ownedPage();
    for (const path of [
      '/invites?state=bogus',
      '/invites?target_type=Group',
      `/pages/${page.id}/invites?state=pending`,
      '/invites?per_page=101',
    ]) {
      const res = await call(server, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('invalid_query');
    }
    const unknown = await call(server, 'GET', `/pages/${UNKNOWN}/invites`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const { page: secret } = await ownedPage('secret');
    const outsider = await createUserWithKey(server);
    for (const path of [`/pages/${secret.id}/invites`, `/invites?target_id=${secret.id}`]) {
      const res = await call(server, 'GET', path, { as: outsider.creds });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('paginates', async () => {
    const { owner, page } = await ownedPage();
    const users = await Promise.all([1, 2, 3].map(() => createUser(server)));
    const sent = await inviteOk(page.id, owner.user.id, users.map((u) => u.id), owner.creds);
    const pages = await Promise.all([1, 2].map((n) => list(`/pages/${page.id}/invites?per_page=2&page=${n}`)));
    expect(pages.map((p) => p.total_items)).toEqual([3, 3]);
    expect(pages.map((p) => p.items.length)).toEqual([2, 1]);
    expect(pages.flatMap((p) => p.items.map((i) => i.id)).sort()).toEqual(sent.map((i) => i.id).sort());
    const sender = await list(`/invites?user_id=${owner.user.id}&per_page=1&page=3`);
    expect(sender.total_items).toBe(3);
    expect(sender.items).toHaveLength(1);
  });

  it('a Member sees the invites they sent or received and those to pages they created', async () => {
    const x = await scene();
    expect(ids(await list('/invites?per_page=100', x.a.creds))).toEqual([x.aP.id, x.aQ.id].sort());
    expect(ids(await list('/invites?per_page=100', x.b.creds))).toEqual([x.bP.id]);
    expect(ids(await list('/invites?per_page=100', x.s.creds))).toEqual([x.cQ.id]);
    expect(ids(await list('/invites?per_page=100', x.owner.creds))).toEqual([x.aP.id, x.bP.id, x.aQ.id, x.cQ.id].sort());
    expect(ids(await list(`/pages/${x.q.id}/invites`, x.c.creds))).toEqual([x.cQ.id]);
    const stranger = await createUserWithKey(server);
    expect(await list('/invites?per_page=100', stranger.creds)).toEqual({ items: [], total_items: 0 });
  });
});

describe('PUT /invites/{id}/accept', () => {
  it('the page creator (a Member) accepts: is_validate and is_accepted true, state accepted, the invitee follows', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    const res = await acceptInvite(sent!.id, owner.creds);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: sent!.id,
      target_id: page.id,
      user_id: owner.user.id,
      user_target_id: a.id,
      is_validate: true,
      is_accepted: true,
      state: 'accepted',
    });
    expect(res.body.user_target.id).toBe(a.id);
    expect(res.body.target.id).toBe(page.id);
    expect(res.body.created_at).toBe(sent!.created_at);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(sent!.updated_at));
    expect(await follows(a.id, page.id)).toBe(1);
    expect(await stored(sent!.id)).toMatchObject({ state: 'accepted', is_validate: true, is_accepted: true });
  });

  it('an Admin accepts an invite to a secret page, and the invitee can now see it', async () => {
    const { owner, page } = await ownedPage('secret');
    const a = await createUserWithKey(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.user.id], owner.creds);
    expect((await call(server, 'GET', `/pages/${page.id}`, { as: a.creds })).status).toBe(404);
    const res = await acceptInvite(sent!.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'accepted', is_validate: true, is_accepted: true });
    expect(await follows(a.user.id, page.id)).toBe(1);
    const seen = await call(server, 'GET', `/pages/${page.id}`, { as: a.creds });
    expect(seen.status).toBe(200);
    expect(seen.body.id).toBe(page.id);
  });

  it('a non-administrator — the invitee themself, or the member who sent it — → 403 and nothing changes', async () => {
    const { page } = await ownedPage();
    const sender = await createUserWithKey(server);
    await makeMember(sender.user.id, page.id);
    const a = await createUserWithKey(server);
    const [sent] = await inviteOk(page.id, sender.user.id, [a.user.id], sender.creds);
    for (const as of [a.creds, sender.creds]) {
      const res = await acceptInvite(sent!.id, as);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(await stored(sent!.id)).toEqual(core(sent));
    expect(await follows(a.user.id, page.id)).toBe(0);
  });

  it('the invitee of a secret page is told 403, not 404; a stranger is told 404', async () => {
    const { owner, page } = await ownedPage('secret');
    const a = await createUserWithKey(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.user.id], owner.creds);
    const byInvitee = await acceptInvite(sent!.id, a.creds);
    expect(byInvitee.status).toBe(403);
    expect(byInvitee.body.error.code).toBe('forbidden');
    const stranger = await createUserWithKey(server);
    const byStranger = await acceptInvite(sent!.id, stranger.creds);
    expect(byStranger.status).toBe(404);
    expect(byStranger.body.error.code).toBe('not_found');
    expect(await stored(sent!.id)).toEqual(core(sent));
  });

  it('accepting twice → 409 already_accepted, one follow', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    expect((await acceptInvite(sent!.id, owner.creds)).status).toBe(200);
    const accepted = await stored(sent!.id);
    for (const as of [owner.creds, undefined]) {
      const again = await acceptInvite(sent!.id, as);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('already_accepted');
    }
    const refuse = await refuseInvite(sent!.id, owner.creds);
    expect(refuse.status).toBe(409);
    expect(refuse.body.error.code).toBe('already_accepted');
    expect(await stored(sent!.id)).toEqual(accepted);
    expect(await follows(a.id, page.id)).toBe(1);
  });

  it('after acceptance the user is a member: a new invite is "User already member"', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    expect((await acceptInvite(sent!.id, owner.creds)).status).toBe(200);
    const again = await invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id] }, owner.creds);
    expect(again.body).toEqual({ success: [], errors: [{ [a.id]: 'User already member' }] });
  });

  it('an unknown id → 404', async () => {
    for (const res of [await acceptInvite(UNKNOWN), await refuseInvite(UNKNOWN)]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('two administrators accepting at once → one 200, one 409, exactly one follow', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    const answers = await Promise.all([acceptInvite(sent!.id, owner.creds), acceptInvite(sent!.id)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(answers.find((r) => r.status === 409)!.body.error.code).toBe('already_accepted');
    expect(await follows(a.id, page.id)).toBe(1);
  });
});

describe('PUT /invites/{id}/refuse', () => {
  it('the page administrator refuses: 200, is_validate false, state refused, the record is kept, no follow', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    const res = await refuseInvite(sent!.id, owner.creds);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: sent!.id,
      user_target_id: a.id,
      is_validate: false,
      is_accepted: false,
      state: 'refused',
    });
    const listed = await list(`/pages/${page.id}/invites?state=refused`);
    expect(ids(listed)).toEqual([sent!.id]);
    expect(listed.items[0]).toMatchObject({ is_validate: false, state: 'refused' });
    expect(await follows(a.id, page.id)).toBe(0);
  });

  it('refused, then accepted or refused again → 409 already_refused, still refused, no follow', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.id]);
    expect((await refuseInvite(sent!.id)).status).toBe(200);
    const refused = await stored(sent!.id);
    for (const res of [await acceptInvite(sent!.id, owner.creds), await acceptInvite(sent!.id), await refuseInvite(sent!.id)]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('already_refused');
    }
    expect(await stored(sent!.id)).toEqual(refused);
    expect(await follows(a.id, page.id)).toBe(0);
  });

  it('a non-administrator (the invitee) → 403 and the invite stays waiting', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUserWithKey(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.user.id], owner.creds);
    const res = await refuseInvite(sent!.id, a.creds);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await stored(sent!.id)).toEqual(core(sent));
  });

  it('after a refusal the user can be invited again, and that invite can be accepted', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const [first] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    expect((await refuseInvite(first!.id, owner.creds)).status).toBe(200);
    const [second] = await inviteOk(page.id, owner.user.id, [a.id], owner.creds);
    expect(second!.id).not.toBe(first!.id);
    expect(second).toMatchObject({ state: 'waiting', is_validate: null, is_accepted: false });
    const all = await invitesOf(page.id, a.id);
    expect(all.items.map((i) => [i.id, i.state]).sort()).toEqual(
      [
        [first!.id, 'refused'],
        [second!.id, 'waiting'],
      ].sort(),
    );
    expect((await acceptInvite(second!.id, owner.creds)).status).toBe(200);
    expect(await follows(a.id, page.id)).toBe(1);
  });
});

describe('DELETE /invites/{id}', () => {
  it('the sender withdraws: 204, the invite is gone, and the user can be invited again', async () => {
    const { page } = await ownedPage();
    const sender = await createUserWithKey(server);
    await makeMember(sender.user.id, page.id);
    const a = await createUser(server);
    const [sent] = await inviteOk(page.id, sender.user.id, [a.id], sender.creds);
    const res = await call(server, 'DELETE', `/invites/${sent!.id}`, { as: sender.creds });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const gone = await call(server, 'GET', `/invites/${sent!.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
    expect((await invitesOf(page.id, a.id)).total_items).toBe(0);
    const accept = await acceptInvite(sent!.id);
    expect(accept.status).toBe(404);
    await inviteOk(page.id, sender.user.id, [a.id], sender.creds);
  });

  it('a settled invite is no longer withdrawn: 409, kept as it was settled (a refusal is kept, an acceptance too)', async () => {
    const { owner, page } = await ownedPage();
    const sender = await createUserWithKey(server);
    await makeMember(sender.user.id, page.id);
    const [a, b] = [await createUser(server), await createUser(server)];
    const [refused, accepted] = await inviteOk(page.id, sender.user.id, [a.id, b.id], sender.creds);
    expect((await refuseInvite(refused!.id, owner.creds)).status).toBe(200);
    expect((await acceptInvite(accepted!.id, owner.creds)).status).toBe(200);
    for (const [settled, code] of [
      [refused!, 'already_refused'],
      [accepted!, 'already_accepted'],
    ] as const) {
      const before = await stored(settled.id);
      for (const as of [sender.creds, owner.creds, undefined]) {
        const res = await call(server, 'DELETE', `/invites/${settled.id}`, { as });
        expect([res.status, res.body?.error?.code], JSON.stringify(res.body)).toEqual([409, code]);
      }
      expect(await stored(settled.id)).toEqual(before);
    }
  });

  it('someone else (the invitee) → 403 and the invite stays', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUserWithKey(server);
    const [sent] = await inviteOk(page.id, owner.user.id, [a.user.id], owner.creds);
    const res = await call(server, 'DELETE', `/invites/${sent!.id}`, { as: a.creds });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await stored(sent!.id)).toEqual(core(sent));
  });
});

describe('concurrency', () => {
  it('20 concurrent invites of the same user → one success, nineteen "User already invite", one waiting invite', async () => {
    const { owner, page } = await ownedPage();
    const a = await createUser(server);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        invite({ target_id: page.id, user_id: owner.user.id, user_target_ids: [a.id] }, owner.creds),
      ),
    );
    for (const r of answers) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const successes = answers.flatMap((r) => r.body.success);
    expect(successes).toHaveLength(1);
    const losers = answers.filter((r) => r.body.success.length === 0);
    expect(losers).toHaveLength(19);
    for (const r of losers) expect(r.body.errors).toEqual([{ [a.id]: 'User already invite' }]);
    const waiting = await list(`/pages/${page.id}/invites?user_target_id=${a.id}&state=waiting`);
    expect(ids(waiting)).toEqual([successes[0]!.id]);
    expect((await invitesOf(page.id, a.id)).total_items).toBe(1);
  });
});
