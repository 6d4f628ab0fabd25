import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createUser, createUserWithKey, userBody } from '../helpers/api.js';
import { useServer } from '../helpers/server.js';

const server = useServer();
/** A Member with their own key (made once: a key costs a process start). */
let member: Awaited<ReturnType<typeof createUserWithKey>>;
beforeAll(async () => {
  member = await createUserWithKey(server);
});

const REQUIRED = [
  'first_name',
  'last_name',
  'nickname',
  'email',
  'password',
  'accept_conditions',
  'accept_confidentiality',
] as const;

const tag = () => randomBytes(4).toString('hex');
const UNKNOWN_ID = 'f'.repeat(32);

type UserRecord = { id: string; nickname: string; email?: string; [k: string]: unknown };

/** Every user, as an administrator sees them (with emails), paging through the whole list. */
async function allUsers(): Promise<UserRecord[]> {
  const users: UserRecord[] = [];
  for (let page = 1; ; page++) {
    const res = await call(server, 'GET', `/users?per_page=100&page=${page}`);
    expect(res.status).toBe(200);
    users.push(...res.body.items);
    if (users.length >= res.body.total_items || res.body.items.length === 0) return users;
  }
}

async function countWithNickname(nickname: string): Promise<number> {
  const res = await call(server, 'GET', `/users?nickname=${encodeURIComponent(nickname)}`);
  expect(res.status).toBe(200);
  return res.body.total_items;
}

/** Neither the nickname nor the email of a refused body made it into the store. */
async function expectNotStored(body: Record<string, unknown>): Promise<void> {
  const users = await allUsers();
  if (typeof body.nickname === 'string') expect(users.filter((u) => u.nickname === body.nickname)).toEqual([]);
  if (typeof body.email === 'string')
    expect(users.filter((u) => u.email === (body.email as string).trim().toLowerCase())).toEqual([]);
}

function expect422(res: { status: number; body: any }, field: string): void {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.fields.map((f: { field: string }) => f.field)).toContain(field);
}

describe('POST /users', () => {
  it('creates a user with the spec fields, role Members and no tagline', async () => {
    const body = userBody({ first_name: 'Ada', last_name: 'Lovelace', email: `Ada.${tag()}@Example.ORG` });
    const res = await call(server, 'POST', '/users', { body });
    expect(res.status).toBe(201);
    const user = res.body;
    expect(user.id).toMatch(/^[0-9a-f]{32}$/);
    expect(user).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      nickname: body.nickname,
      fullname: 'Ada Lovelace',
      name: 'Ada Lovelace',
      email: (body.email as string).toLowerCase(),
      tagline: null,
    });
    expect(typeof user.slug).toBe('string');
    expect(user.slug).toMatch(/^[a-z0-9-]+$/);
    const roles = await call(server, 'GET', `/users?role=Members&nickname=${body.nickname}`);
    expect(roles.body.items.map((u: UserRecord) => u.id)).toEqual([user.id]);
    expect(await call(server, 'GET', `/users/${user.id}`)).toMatchObject({ status: 200, body: user });
  });

  it('never shows the password or its hash in any response', async () => {
    const password = `pw${tag()}9`;
    const user = await createUser(server, { password });
    const { creds } = member;
    const responses = [
      await call(server, 'GET', `/users/${user.id}`),
      await call(server, 'GET', `/users?nickname=${user.nickname}`),
      await call(server, 'GET', '/users?per_page=100'),
      await call(server, 'GET', '/me', { as: creds }),
      await call(server, 'GET', `/users/${user.id}`, { as: creds }),
    ];
    for (const text of [JSON.stringify(user), ...responses.map((r) => JSON.stringify(r.body))]) {
      expect(text).not.toMatch(/password/i);
      expect(text).not.toContain(password);
      expect(text).not.toContain('scrypt');
    }
    expect(responses.every((r) => r.status === 200)).toBe(true);
  });

  it.each(REQUIRED)('refuses a body without %s (422 naming it) and stores nothing', async (field) => {
    const body = userBody();
    delete body[field];
    const res = await call(server, 'POST', '/users', { body });
    expect422(res, field);
    expect(res.body.error.fields).toEqual([{ field, message: 'is required' }]);
    await expectNotStored(body);
  });

  it.each([
    ['first_name', 42],
    ['last_name', ['Lovelace']],
    ['nickname', { nick: 'ada' }],
    ['email', 12345],
    ['password', 12345678],
    ['accept_conditions', 'perhaps'],
    ['accept_confidentiality', 1],
  ])('refuses %s of the wrong type (%j) with 422 and stores nothing', async (field, value) => {
    const body = userBody({ [field]: value });
    const res = await call(server, 'POST', '/users', { body });
    expect422(res, field);
    expect(res.body.error.fields).toHaveLength(1);
    expect(res.body.error.fields[0].message).toMatch(/^must be/);
    await expectNotStored(body);
  });

  it.each([
    ['first_name', '   '],
    ['nickname', 'has space'],
    ['email', 'not-an-email'],
    ['email', 'a@b'],
  ])('refuses an invalid %s (%j)', async (field, value) => {
    const body = userBody({ [field]: value });
    const res = await call(server, 'POST', '/users', { body });
    expect422(res, field);
    await expectNotStored(body);
  });

  for (const flag of ['accept_conditions', 'accept_confidentiality'] as const) {
    it.each([
      ['false', false],
      ['"false"', 'false'],
      ['missing', undefined],
    ])(`refuses ${flag} %s: 422, no user stored`, async (_label, value) => {
      const body = userBody({ [flag]: value });
      if (value === undefined) delete body[flag];
      const res = await call(server, 'POST', '/users', { body });
      expect422(res, flag);
      expect(res.body.error.fields).toHaveLength(1);
      await expectNotStored(body);
    });
  }

  it('refuses both consents false, naming both', async () => {
    const body = userBody({ accept_conditions: false, accept_confidentiality: false });
    const res = await call(server, 'POST', '/users', { body });
    expect(res.status).toBe(422);
    expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'accept_conditions',
      'accept_confidentiality',
    ]);
    await expectNotStored(body);
  });

  it.each([
    ['too short', 'abc1'],
    ['7 characters', 'abcdef1'],
    ['no digit', 'abcdefghij'],
    ['no letter', '1234567890'],
    ['only symbols and a digit', '!!!!!!!1'],
    ['a superscript two is not a digit', 'abcdefgh\u00b2'],
    ['a roman numeral is not a digit', 'abcdefgh\u2167'],
    ['empty', ''],
  ])('refuses a weak password (%s)', async (_label, password) => {
    const body = userBody({ password });
    const res = await call(server, 'POST', '/users', { body });
    expect422(res, 'password');
    expect(res.body.error.fields).toHaveLength(1);
    await expectNotStored(body);
  });

  it.each([
    ['exactly 8 characters', 'abcdefg1'],
    ['letters of any script and a non-ASCII decimal digit', '\u00e9t\u00e9\u0436\u0436\u0436\u0436\u0436\u0663'],
  ])('accepts a password of %s with a letter and a digit', async (_label, password) => {
    const res = await call(server, 'POST', '/users', { body: userBody({ password }) });
    expect(res.status).toBe(201);
  });

  it('refuses a taken email with 409 email_taken and the exact message', async () => {
    const first = await createUser(server);
    const second = userBody({ email: first.email });
    const res = await call(server, 'POST', '/users', { body: second });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'email_taken', message: 'A user already exist with that email', request_id: expect.any(String) } });
    expect(await countWithNickname(second.nickname as string)).toBe(0);
    expect((await allUsers()).filter((u) => u.email === first.email)).toHaveLength(1);
  });

  it('compares emails case-insensitively (emails are stored lowercased)', async () => {
    const email = `Grace.${tag()}@Example.org`;
    const first = await createUser(server, { email });
    expect(first.email).toBe(email.toLowerCase());
    const second = userBody({ email: email.toUpperCase() });
    const res = await call(server, 'POST', '/users', { body: second });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({ code: 'email_taken', message: 'A user already exist with that email', request_id: expect.any(String) });
    expect(await countWithNickname(second.nickname as string)).toBe(0);
  });

  it('refuses a taken nickname with 409 nickname_taken', async () => {
    const first = await createUser(server);
    const second = userBody({ nickname: first.nickname });
    const res = await call(server, 'POST', '/users', { body: second });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('nickname_taken');
    expect(res.body.error.message).toEqual(expect.any(String));
    expect(await countWithNickname(first.nickname)).toBe(1);
    await expectNotStored({ email: second.email });
  });

  it('gives exactly one 201 to 20 concurrent creates with the same email, and 409 to the others', async () => {
    const email = `race-${tag()}@example.org`;
    const bodies = Array.from({ length: 20 }, () => userBody({ email }));
    const results = await Promise.all(bodies.map((body) => call(server, 'POST', '/users', { body })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('email_taken');
    const stored = (await allUsers()).filter((u) => u.email === email);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).toBe(results.find((r) => r.status === 201)!.body.id);
  });
});

describe('GET /users', () => {
  it('filters by role, given as an id or as a name', async () => {
    const someone = await createUser(server);
    const membersId = someone.permission_set_id as string;
    const me = await call(server, 'GET', '/me');
    const adminId = me.body.id as string;

    for (const role of [membersId, 'Members', 'members']) {
      const res = await call(server, 'GET', `/users?role=${role}&per_page=100&nickname=${someone.nickname}`);
      expect(res.status).toBe(200);
      expect(res.body.items.map((u: UserRecord) => u.id)).toEqual([someone.id]);
    }
    const admins = await call(server, 'GET', '/users?role=Admins&per_page=100');
    expect(admins.body.items.map((u: UserRecord) => u.id)).toEqual([adminId]);
    expect(admins.body.total_items).toBe(1);
    const byAdminRoleId = await call(server, 'GET', `/users?role=${me.body.permission_set_id}`);
    expect(byAdminRoleId.body.items.map((u: UserRecord) => u.id)).toEqual([adminId]);

    const members = await call(server, 'GET', '/users?role=Members&per_page=100');
    expect(members.body.items.map((u: UserRecord) => u.id)).not.toContain(adminId);
    expect(members.body.items.every((u: UserRecord) => u.permission_set_id === membersId)).toBe(true);

    expect((await call(server, 'GET', '/users?role=Nobody')).body).toEqual({ items: [], total_items: 0 });
  });

  it('filters by a role whose name begins with a capital beyond ASCII, as it is written', async () => {
    const name = `Équipe ${tag()}`;
    const role = await call(server, 'POST', '/permission_sets', { body: { name, permissions: { users: { index: true } } } });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const someone = await createUser(server);
    expect((await call(server, 'PUT', `/users/${someone.id}/role`, { body: { permission_set_id: role.body.id } })).status).toBe(200);
    for (const ref of [role.body.id, name, name.replace('Équipe', 'ÉQUIPE')]) {
      const res = await call(server, 'GET', `/users?role=${encodeURIComponent(ref)}`);
      expect(res.body, ref).toMatchObject({ items: [{ id: someone.id }], total_items: 1 });
    }
  });

  it('filters by a role named in any case beyond ASCII too, as GET /permission_sets?name= and the unique name do', async () => {
    const name = `Équipe ${tag()}`;
    const role = await call(server, 'POST', '/permission_sets', { body: { name, permissions: { users: { index: true } } } });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    // The same name in another case is taken…
    expect((await call(server, 'POST', '/permission_sets', { body: { name: name.toLowerCase(), permissions: {} } })).status).toBe(409);
    // …and found by the roles' own name filter.
    expect((await call(server, 'GET', `/permission_sets?name=${encodeURIComponent(name.toLowerCase())}`)).body).toMatchObject({ total_items: 1 });
    const someone = await createUser(server);
    expect((await call(server, 'PUT', `/users/${someone.id}/role`, { body: { permission_set_id: role.body.id } })).status).toBe(200);
    for (const ref of [name.toLowerCase(), name.toUpperCase()]) {
      const res = await call(server, 'GET', `/users?role=${encodeURIComponent(ref)}`);
      expect(res.body, ref).toMatchObject({ items: [{ id: someone.id }], total_items: 1 });
    }
  });

  it('filters by nickname with an exact match', async () => {
    const base = `ada${tag()}`;
    const ada = await createUser(server, { nickname: base });
    await createUser(server, { nickname: `${base}m` });
    await createUser(server, { nickname: `x${base}` });
    const res = await call(server, 'GET', `/users?nickname=${base}`);
    expect(res.status).toBe(200);
    expect(res.body.total_items).toBe(1);
    expect(res.body.items.map((u: UserRecord) => u.id)).toEqual([ada.id]);
    expect((await call(server, 'GET', `/users?nickname=${base.slice(0, -1)}`)).body).toEqual({
      items: [],
      total_items: 0,
    });
  });

  it('pages with page and per_page: full pages, the last partial page, and past the end', async () => {
    // Users are listed in creation order; the ones made here are the last of the list.
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createUser(server)).id);
    const whole = await call(server, 'GET', '/users?per_page=100');
    const total = whole.body.total_items as number;
    expect(total).toBeGreaterThanOrEqual(6);
    // A page size that leaves a partial last page.
    const perPage = [4, 3, 5, 7].find((n) => total % n !== 0)!;
    const lastPage = Math.ceil(total / perPage);
    const remainder = total - (lastPage - 1) * perPage;
    expect(remainder).toBeLessThan(perPage);

    const first = await call(server, 'GET', `/users?page=1&per_page=${perPage}`);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(perPage);
    expect(first.body.total_items).toBe(total);

    const seen: string[] = [];
    for (let p = 1; p <= lastPage; p++) {
      const res = await call(server, 'GET', `/users?page=${p}&per_page=${perPage}`);
      expect(res.body.total_items).toBe(total);
      expect(res.body.items).toHaveLength(p === lastPage ? remainder : perPage);
      seen.push(...res.body.items.map((u: UserRecord) => u.id));
    }
    expect(new Set(seen).size).toBe(total);
    expect(seen.slice(-5)).toEqual(made);

    const past = await call(server, 'GET', `/users?page=${lastPage + 1}&per_page=${perPage}`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ items: [], total_items: total });
  });

  it('defaults to 25 per page and accepts per_page=100', async () => {
    const missing = 26 - (await call(server, 'GET', '/users')).body.total_items;
    await Promise.all(Array.from({ length: Math.max(0, missing) }, () => createUser(server)));
    const res = await call(server, 'GET', '/users');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(25);
    expect((await call(server, 'GET', '/users?per_page=100')).status).toBe(200);
  });

  it.each([
    'per_page=101',
    'per_page=0',
    'per_page=-1',
    'per_page=abc',
    'per_page=2.5',
    'page=0',
    'page=-3',
    'page=two',
    'per_page=',
    'per_page=10&per_page=20',
  ])('refuses ?%s with 400 invalid_query', async (query) => {
    const res = await call(server, 'GET', `/users?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_query');
    expect(res.body.error).not.toHaveProperty('fields');
  });

  it('names per_page in the message of an oversized page', async () => {
    const res = await call(server, 'GET', '/users?per_page=101');
    expect(res.body.error.message).toMatch(/per_page/);
  });
});

describe('GET /users/{id}, /me and nickname availability', () => {
  it('answers one user by id, and 404 not_found for an unknown id', async () => {
    const user = await createUser(server);
    const res = await call(server, 'GET', `/users/${user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(user);
    for (const id of [UNKNOWN_ID, 'nope', '12345']) {
      const missing = await call(server, 'GET', `/users/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('not_found');
    }
  });

  it('tells whether a nickname is available', async () => {
    const user = await createUser(server);
    const taken = await call(server, 'GET', `/users/nickname_availability?nickname=${user.nickname}`);
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ nickname: user.nickname, available: false });
    const free = `free_${tag()}`;
    const open = await call(server, 'GET', `/users/nickname_availability?nickname=${free}`);
    expect(open.body).toEqual({ nickname: free, available: true });
  });

  it.each(['', '?nickname=', '?nickname=%20%20', '?nickname=has%20space', `?nickname=${'n'.repeat(51)}`])(
    'refuses nickname_availability%s with 400 (a nickname nobody could take is not "available")',
    async (query) => {
      const res = await call(server, 'GET', `/users/nickname_availability${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
      expect(res.body.error.message).toMatch(/nickname/);
    },
  );

  it('GET /me answers the caller, with their email and whether they are an Admin', async () => {
    const { user, creds } = member;
    const me = await call(server, 'GET', '/me', { as: creds });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ ...user, is_admin: false });
    expect(me.body.email).toBe(user.email);
    const admin = await call(server, 'GET', '/me');
    expect(admin.status).toBe(200);
    expect(admin.body.nickname).toBe('admin');
    expect(admin.body.is_admin).toBe(true);
  });
});

describe('email visibility', () => {
  it('shows the email to the user themself and to Admins only', async () => {
    const { user: reader, creds } = member;
    const other = await createUser(server);

    const asMember = await call(server, 'GET', `/users/${other.id}`, { as: creds });
    expect(asMember.status).toBe(200);
    expect(asMember.body.nickname).toBe(other.nickname);
    expect(asMember.body).not.toHaveProperty('email');
    expect(JSON.stringify(asMember.body)).not.toContain(other.email);

    const self = await call(server, 'GET', `/users/${reader.id}`, { as: creds });
    expect(self.body.email).toBe(reader.email);

    const listed = await call(server, 'GET', '/users?per_page=100', { as: creds });
    expect(listed.status).toBe(200);
    for (const u of listed.body.items as UserRecord[]) {
      if (u.id === reader.id) expect(u.email).toBe(reader.email);
      else expect(u).not.toHaveProperty('email');
    }
    const filtered = await call(server, 'GET', `/users?nickname=${other.nickname}`, { as: creds });
    expect(filtered.body.items[0]).not.toHaveProperty('email');

    const asAdmin = await call(server, 'GET', `/users/${other.id}`);
    expect(asAdmin.body.email).toBe(other.email);
    const adminList = await call(server, 'GET', `/users?nickname=${other.nickname}`);
    expect(adminList.body.items[0].email).toBe(other.email);
  });
});
