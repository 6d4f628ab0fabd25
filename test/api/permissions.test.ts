import { describe, expect, it } from 'vitest';
import { call, createUser, createUserWithKey } from '../helpers/api.js';
import { useServer } from '../helpers/server.js';
import { SPEC_PERMISSIONS } from '../helpers/spec-permissions.js';

const server = useServer();

const SPEC_TABLE = SPEC_PERMISSIONS;

type Category = keyof typeof SPEC_TABLE;
type Permissions = Record<string, Record<string, boolean>>;

/** Every action of the table false, except those granted. */
function permissionsGranting(granted: Partial<Record<Category, readonly string[]>>): Permissions {
  return Object.fromEntries(
    Object.entries(SPEC_TABLE).map(([category, actions]) => [
      category,
      Object.fromEntries(actions.map((a) => [a, (granted[category as Category] ?? []).includes(a)])),
    ]),
  );
}

const EVERYDAY = ['index', 'show', 'create', 'edit', 'destroy'];
const READ_ONLY = ['index', 'show'];
const VISITORS = permissionsGranting({ posts: READ_ONLY, statuses: READ_ONLY, users: READ_ONLY });
const MEMBERS = permissionsGranting({
  posts: EVERYDAY,
  statuses: EVERYDAY,
  users: ['can_use_api', 'index', 'show'],
});
const ADMINS = permissionsGranting({ posts: SPEC_TABLE.posts, statuses: SPEC_TABLE.statuses, users: SPEC_TABLE.users });

/** Every category and action of the spec, each a boolean (categories beyond the three are allowed). */
function expectCompletePermissions(body: Permissions): void {
  for (const [category, actions] of Object.entries(SPEC_TABLE)) {
    expect(body, `category ${category}`).toHaveProperty(category);
    expect(Object.keys(body[category]!).sort()).toEqual([...actions].sort());
    for (const action of actions) expect(typeof body[category]![action], `${category}.${action}`).toBe('boolean');
  }
}

describe('GET /permissions', () => {
  it('without user_id answers the Visitors set: index and show only, no can_use_api', async () => {
    const res = await call(server, 'GET', '/permissions');
    expect(res.status).toBe(200);
    expectCompletePermissions(res.body);
    expect(res.body).toEqual(VISITORS);
    expect(res.body.users.can_use_api).toBe(false);
    expect(res.body.posts.index).toBe(true);
    expect(res.body.statuses.show).toBe(true);
  });

  it("with a new user's id answers the Members defaults", async () => {
    const user = await createUser(server);
    const res = await call(server, 'GET', `/permissions?user_id=${user.id}`);
    expect(res.status).toBe(200);
    expectCompletePermissions(res.body);
    expect(res.body).toEqual(MEMBERS);
    expect(res.body.users.can_use_api).toBe(true);
    expect(res.body.users.import).toBe(false);
  });

  it('gives the bootstrap administrator every action', async () => {
    const admin = await call(server, 'GET', '/me');
    const res = await call(server, 'GET', `/permissions?user_id=${admin.body.id}`);
    expect(res.status).toBe(200);
    expectCompletePermissions(res.body);
    expect(res.body).toEqual(ADMINS);
  });

  it('answers 404 not_found for an unknown user', async () => {
    for (const id of ['f'.repeat(32), 'nobody']) {
      const res = await call(server, 'GET', `/permissions?user_id=${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('answers 400 invalid_query for an empty user_id', async () => {
    const res = await call(server, 'GET', '/permissions?user_id=');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_query');
  });

  it('can be read by a Member, about themself and about others', async () => {
    const { user, creds } = await createUserWithKey(server);
    const admin = await call(server, 'GET', '/me');
    expect((await call(server, 'GET', '/permissions', { as: creds })).body).toEqual(VISITORS);
    expect((await call(server, 'GET', `/permissions?user_id=${user.id}`, { as: creds })).body).toEqual(MEMBERS);
    expect((await call(server, 'GET', `/permissions?user_id=${admin.body.id}`, { as: creds })).body).toEqual(ADMINS);
    expect((await call(server, 'GET', `/users/${user.id}/permissions`, { as: creds })).body).toEqual(MEMBERS);
  });
});

describe('GET /users/{id}/permissions', () => {
  it('answers the same object as GET /permissions?user_id=', async () => {
    const user = await createUser(server);
    const res = await call(server, 'GET', `/users/${user.id}/permissions`);
    expect(res.status).toBe(200);
    expectCompletePermissions(res.body);
    expect(res.body).toEqual(MEMBERS);
    expect(res.body).toEqual((await call(server, 'GET', `/permissions?user_id=${user.id}`)).body);
  });

  it('gives the bootstrap administrator every action', async () => {
    const admin = await call(server, 'GET', '/me');
    const res = await call(server, 'GET', `/users/${admin.body.id}/permissions`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(ADMINS);
  });

  it('answers 404 not_found for an unknown user', async () => {
    const res = await call(server, 'GET', `/users/${'f'.repeat(32)}/permissions`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
