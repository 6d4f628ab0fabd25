import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createUser, createUserWithKey } from '../helpers/api.js';
import { useServer } from '../helpers/server.js';
import { SPEC_PERMISSIONS } from '../helpers/spec-permissions.js';

const SPEC_TABLE: Record<string, readonly string[]> = SPEC_PERMISSIONS;

type Perms = Record<string, Record<string, boolean>>;
type PermissionSet = {
  id: string;
  name: string;
  show_as_tagline: boolean;
  image_url: string | null;
  permissions: Perms;
  is_default: boolean;
  [k: string]: unknown;
};
type Member = Awaited<ReturnType<typeof createUserWithKey>>;

/** A full permissions object: every action of the table false, except the `granted` ones ("category.action"). */
function expected(granted: string[]): Perms {
  const out: Perms = {};
  for (const [category, actions] of Object.entries(SPEC_TABLE))
    out[category] = Object.fromEntries(actions.map((a) => [a, granted.includes(`${category}.${a}`)]));
  return out;
}
const every = (category: string, actions: readonly string[]) => actions.map((a) => `${category}.${a}`);
const ALL = Object.entries(SPEC_TABLE).flatMap(([c, actions]) => every(c, actions));
const MEMBERS = [
  'users.can_use_api',
  'users.index',
  'users.show',
  ...every('posts', ['index', 'show', 'create', 'edit', 'destroy']),
  ...every('statuses', ['index', 'show', 'create', 'edit', 'destroy']),
];
const VISITORS = ['posts', 'users', 'statuses'].flatMap((c) => every(c, ['index', 'show']));

const tag = () => randomBytes(4).toString('hex');
const UNKNOWN_ID = 'f'.repeat(32);

const server = useServer();
let member: Member;
let adminId: string;
let defaults: Record<'Admins' | 'Members' | 'Visitors', PermissionSet>;

beforeAll(async () => {
  member = await createUserWithKey(server);
  adminId = (await call(server, 'GET', '/me')).body.id;
  const sets = await listSets();
  defaults = Object.fromEntries(
    ['Admins', 'Members', 'Visitors'].map((name) => [name, sets.find((s) => s.name === name)!]),
  ) as typeof defaults;
});

async function listSets(): Promise<PermissionSet[]> {
  const res = await call(server, 'GET', '/permission_sets?per_page=100');
  expect(res.status).toBe(200);
  expect(res.body.total_items).toBe(res.body.items.length);
  return res.body.items;
}

async function getSet(id: string): Promise<PermissionSet> {
  const res = await call(server, 'GET', `/permission_sets/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function createSet(body: Record<string, unknown>): Promise<PermissionSet> {
  const res = await call(server, 'POST', '/permission_sets', { body: { name: `Role ${tag()}`, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function setRole(userId: string, setId: string) {
  return call(server, 'PUT', `/users/${userId}/role`, { body: { permission_set_id: setId } });
}

function expectError(res: { status: number; body: any }, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
}

describe('GET /permission_sets', () => {
  it('lists the three defaults with every action of the spec table as a boolean', async () => {
    const sets = await listSets();
    expect(sets.filter((s) => s.is_default).map((s) => s.name).sort()).toEqual(['Admins', 'Members', 'Visitors']);
    for (const set of sets) {
      expect(set.id).toMatch(/^[0-9a-f]{32}$/);
      expect(Object.keys(set.permissions).sort()).toEqual(Object.keys(SPEC_TABLE).sort());
      for (const [category, actions] of Object.entries(SPEC_TABLE)) {
        expect(Object.keys(set.permissions[category]!).sort()).toEqual([...actions].sort());
        for (const action of actions) expect(typeof set.permissions[category]![action]).toBe('boolean');
      }
    }
  });

  it('grants per docs/api.md: Admins everything, Members the everyday actions, Visitors index and show', () => {
    expect(defaults.Admins).toMatchObject({ show_as_tagline: false, image_url: null, is_default: true });
    expect(defaults.Admins.permissions).toEqual(expected(ALL));
    expect(defaults.Members.permissions).toEqual(expected(MEMBERS));
    expect(defaults.Visitors.permissions).toEqual(expected(VISITORS));
  });

  it('answers one set by id, and 404 for an unknown id', async () => {
    expect(await getSet(defaults.Members.id)).toEqual(defaults.Members);
    expectError(await call(server, 'GET', `/permission_sets/${UNKNOWN_ID}`), 404, 'not_found');
  });

  it('is readable by a Member (no role permission is needed to read roles)', async () => {
    const res = await call(server, 'GET', '/permission_sets', { as: member.creds });
    expect(res.status).toBe(200);
    expect(res.body.items.map((s: PermissionSet) => s.name)).toEqual(expect.arrayContaining(['Admins', 'Members', 'Visitors']));
  });
});

describe('POST /permission_sets', () => {
  it('creates a set from partial permissions: actions left out are false', async () => {
    const name = `Editors ${tag()}`;
    const res = await call(server, 'POST', '/permission_sets', {
      body: { name, permissions: { users: { index: true, can_use_api: true }, posts: { moderate: true, seo: false } } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name, show_as_tagline: false, image_url: null, is_default: false });
    expect(res.body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.permissions).toEqual(expected(['users.index', 'users.can_use_api', 'posts.moderate']));
    expect(await getSet(res.body.id)).toEqual(res.body);
    expect((await listSets()).map((s) => s.id)).toContain(res.body.id);
  });

  it('creates a set without permissions at all: everything false', async () => {
    const set = await createSet({});
    expect(set.permissions).toEqual(expected([]));
  });

  it('keeps show_as_tagline and image_url', async () => {
    const set = await createSet({ show_as_tagline: true, image_url: 'https://img.example.org/mod.png' });
    expect(set).toMatchObject({ show_as_tagline: true, image_url: 'https://img.example.org/mod.png' });
    expect(await getSet(set.id)).toMatchObject({ show_as_tagline: true, image_url: 'https://img.example.org/mod.png' });
  });

  it('takes a form body, permissions as a JSON string', async () => {
    const name = `Form ${tag()}`;
    const res = await call(server, 'POST', '/permission_sets', {
      kind: 'form',
      body: { name, show_as_tagline: 'true', permissions: JSON.stringify({ statuses: { pin: true } }) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ name, show_as_tagline: true });
    expect(res.body.permissions).toEqual(expected(['statuses.pin']));
  });

  it('refuses an unknown category, an unknown action, a non-boolean and a bad image_url with 422, creating nothing', async () => {
    const before = (await listSets()).length;
    const bodies = [
      { permissions: { pages: { index: true } } },
      { permissions: { users: { fly: true } } },
      { permissions: { users: { index: 'maybe' } } },
      { permissions: 'not json' },
      { image_url: 'ftp://example.org/x.png' },
      { name: '' },
    ];
    for (const body of bodies) {
      const res = await call(server, 'POST', '/permission_sets', { body: { name: `Bad ${tag()}`, ...body } });
      expectError(res, 422, 'validation_failed');
      expect(res.body.error.fields.map((f: { field: string }) => f.field.split('.')[0])).toContain(Object.keys(body)[0]);
    }
    expect((await listSets()).length).toBe(before);
  });

  it('refuses a duplicate name with 409', async () => {
    const set = await createSet({});
    const before = (await listSets()).length;
    expectError(await call(server, 'POST', '/permission_sets', { body: { name: set.name } }), 409, 'conflict');
    expectError(await call(server, 'POST', '/permission_sets', { body: { name: 'Admins' } }), 409, 'conflict');
    // Names are looked up case-insensitively (GET /users?role=, the CLI's --role): they must be unique that way too.
    expectError(await call(server, 'POST', '/permission_sets', { body: { name: set.name.toUpperCase() } }), 409, 'conflict');
    expect((await listSets()).length).toBe(before);
  });

  it('refuses a Member (no users.add_roles) with 403, creating nothing', async () => {
    const name = `Sneaky ${tag()}`;
    const res = await call(server, 'POST', '/permission_sets', { as: member.creds, body: { name } });
    expectError(res, 403, 'forbidden');
    expect((await listSets()).map((s) => s.name)).not.toContain(name);
  });
});

describe('PUT /permission_sets/{id}', () => {
  it('updates partially: actions left out keep their value', async () => {
    const set = await createSet({ permissions: { users: { index: true, show: true }, posts: { any: true } } });
    const res = await call(server, 'PUT', `/permission_sets/${set.id}`, {
      body: { permissions: { users: { show: false, export: true } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.permissions).toEqual(expected(['users.index', 'users.export', 'posts.any']));
    expect(res.body.name).toBe(set.name);
    expect(await getSet(set.id)).toEqual(res.body);

    // Only the name: permissions unchanged.
    const renamed = await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { name: `${set.name} bis` } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: `${set.name} bis`, permissions: res.body.permissions });
  });

  it('sets and clears the tagline and the image', async () => {
    const set = await createSet({});
    const on = await call(server, 'PUT', `/permission_sets/${set.id}`, {
      body: { show_as_tagline: true, image_url: 'http://img.example.org/a.png' },
    });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ show_as_tagline: true, image_url: 'http://img.example.org/a.png' });
    const off = await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { show_as_tagline: false, image_url: null } });
    expect(off.status).toBe(200);
    expect(await getSet(set.id)).toMatchObject({ show_as_tagline: false, image_url: null });
  });

  it('edits a default set, which stays a default', async () => {
    const res = await call(server, 'PUT', `/permission_sets/${defaults.Visitors.id}`, {
      body: { image_url: 'https://img.example.org/visitor.png', permissions: { statuses: { landing: true } } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Visitors', is_default: true, image_url: 'https://img.example.org/visitor.png' });
    expect(res.body.permissions).toEqual(expected([...VISITORS, 'statuses.landing']));
    // Back as it was, for the other tests.
    const back = await call(server, 'PUT', `/permission_sets/${defaults.Visitors.id}`, {
      body: { image_url: null, permissions: { statuses: { landing: false } } },
    });
    expect(back.status).toBe(200);
    expect(back.body.permissions).toEqual(defaults.Visitors.permissions);
  });

  it('refuses an unknown action with 422 and an unknown id with 404, changing nothing', async () => {
    const set = await createSet({ permissions: { users: { index: true } } });
    expectError(
      await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { permissions: { users: { index: false, fly: true } } } }),
      422,
      'validation_failed',
    );
    expectError(await call(server, 'PUT', `/permission_sets/${UNKNOWN_ID}`, { body: { name: 'x' } }), 404, 'not_found');
    expect(await getSet(set.id)).toEqual(set);
  });

  it('refuses renaming onto another set with 409', async () => {
    const set = await createSet({});
    expectError(await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { name: 'Members' } }), 409, 'conflict');
    expectError(await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { name: 'members' } }), 409, 'conflict');
    expect((await getSet(set.id)).name).toBe(set.name);
    // A set may change the case of its own name.
    const recased = await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { name: set.name.toUpperCase() } });
    expect(recased.status).toBe(200);
    expect((await getSet(set.id)).name).toBe(set.name.toUpperCase());
  });

  it('refuses a Member with 403, changing nothing', async () => {
    const res = await call(server, 'PUT', `/permission_sets/${defaults.Members.id}`, {
      as: member.creds,
      body: { permissions: { users: { add_roles: true } } },
    });
    expectError(res, 403, 'forbidden');
    expect((await getSet(defaults.Members.id)).permissions).toEqual(defaults.Members.permissions);
  });
});

describe('DELETE /permission_sets/{id}', () => {
  it('refuses each default set with 409 default_permission_set', async () => {
    for (const set of Object.values(defaults)) {
      expectError(await call(server, 'DELETE', `/permission_sets/${set.id}`), 409, 'default_permission_set');
      expect((await getSet(set.id)).name).toBe(set.name);
    }
  });

  it('refuses a set that is some user’s role with 409 permission_set_in_use, then deletes it once unused', async () => {
    const set = await createSet({});
    const user = await createUser(server);
    expect((await setRole(user.id, set.id)).status).toBe(200);
    expectError(await call(server, 'DELETE', `/permission_sets/${set.id}`), 409, 'permission_set_in_use');
    expect((await getSet(set.id)).id).toBe(set.id);

    expect((await setRole(user.id, defaults.Members.id)).status).toBe(200);
    const res = await call(server, 'DELETE', `/permission_sets/${set.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectError(await call(server, 'GET', `/permission_sets/${set.id}`), 404, 'not_found');
    expectError(await call(server, 'DELETE', `/permission_sets/${set.id}`), 404, 'not_found');
  });

  it('refuses a Member with 403, deleting nothing', async () => {
    const set = await createSet({});
    expectError(await call(server, 'DELETE', `/permission_sets/${set.id}`, { as: member.creds }), 403, 'forbidden');
    expect((await getSet(set.id)).id).toBe(set.id);
  });
});

describe('PUT /users/{id}/role', () => {
  it('gives a role with a tagline: the user carries it in every user view, and ?role= finds them', async () => {
    const set = await createSet({ show_as_tagline: true, image_url: 'https://img.example.org/mod.png' });
    const user = await createUser(server);
    expect(user.tagline).toBeNull();

    const res = await setRole(user.id, set.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, permission_set_id: set.id, tagline: { name: set.name, image_url: set.image_url } });
    expect((await call(server, 'GET', `/users/${user.id}`)).body.tagline).toEqual({ name: set.name, image_url: set.image_url });
    // Another user sees the tagline too.
    expect((await call(server, 'GET', `/users/${user.id}`, { as: member.creds })).body.tagline).toEqual({
      name: set.name,
      image_url: set.image_url,
    });

    for (const role of [set.id, set.name, set.name.toLowerCase()]) {
      const list = await call(server, 'GET', `/users?role=${encodeURIComponent(role)}`);
      expect(list.status).toBe(200);
      expect(list.body.total_items).toBe(1);
      expect(list.body.items.map((u: { id: string }) => u.id)).toEqual([user.id]);
      expect(list.body.items[0].tagline).toEqual({ name: set.name, image_url: set.image_url });
    }

    // A role without the flag: tagline null everywhere; the user leaves the old role's list.
    const plain = await createSet({});
    expect((await setRole(user.id, plain.id)).body.tagline).toBeNull();
    expect((await call(server, 'GET', `/users/${user.id}`)).body.tagline).toBeNull();
    expect((await call(server, 'GET', `/users?role=${set.id}`)).body.total_items).toBe(0);
    const listed = await call(server, 'GET', `/users?role=${plain.id}`);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: user.id, tagline: null, permission_set_id: plain.id })]);
  });

  it('follows a change of the set itself: turning show_as_tagline on shows it on its users', async () => {
    const set = await createSet({});
    const user = await createUser(server);
    await setRole(user.id, set.id);
    expect((await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { show_as_tagline: true } })).status).toBe(200);
    expect((await call(server, 'GET', `/users/${user.id}`)).body.tagline).toEqual({ name: set.name, image_url: null });
    const all = await call(server, 'GET', `/users?role=${encodeURIComponent(set.name)}`);
    expect(all.body.items[0].tagline).toEqual({ name: set.name, image_url: null });
  });

  it('lists Members by the role name', async () => {
    const list = await call(server, 'GET', '/users?role=Members&per_page=100');
    expect(list.status).toBe(200);
    expect(list.body.items.map((u: { id: string }) => u.id)).toContain(member.user.id);
    expect(list.body.items.map((u: { id: string }) => u.id)).not.toContain(adminId);
    for (const u of list.body.items) expect(u.permission_set_id).toBe(defaults.Members.id);
  });

  it('refuses a Member with 403, an unknown user or set with 404, a missing set with 422; nothing changes', async () => {
    const user = await createUser(server);
    expectError(
      await call(server, 'PUT', `/users/${user.id}/role`, { as: member.creds, body: { permission_set_id: defaults.Admins.id } }),
      403,
      'forbidden',
    );
    // Not even on themselves.
    expectError(
      await call(server, 'PUT', `/users/${member.user.id}/role`, { as: member.creds, body: { permission_set_id: defaults.Admins.id } }),
      403,
      'forbidden',
    );
    expectError(await setRole(UNKNOWN_ID, defaults.Admins.id), 404, 'not_found');
    expectError(await setRole(user.id, UNKNOWN_ID), 404, 'not_found');
    expectError(await call(server, 'PUT', `/users/${user.id}/role`, { body: {} }), 422, 'validation_failed');
    for (const id of [user.id, member.user.id])
      expect((await call(server, 'GET', `/users/${id}`)).body.permission_set_id).toBe(defaults.Members.id);
  });

  it('applies the new role at once: moved to Visitors, the next call is 403 api_access_denied; back to Members, it works', async () => {
    const someone = await createUserWithKey(server);
    expect((await call(server, 'GET', '/me', { as: someone.creds })).status).toBe(200);
    expect((await setRole(someone.user.id, defaults.Visitors.id)).status).toBe(200);
    for (const path of ['/me', '/users', `/users/${someone.user.id}`, '/permission_sets'])
      expectError(await call(server, 'GET', path, { as: someone.creds }), 403, 'api_access_denied');
    expect((await setRole(someone.user.id, defaults.Members.id)).status).toBe(200);
    expect((await call(server, 'GET', '/me', { as: someone.creds })).status).toBe(200);
  });

  it('applies a custom role without users.index: GET /users is 403, but the user still reads themself', async () => {
    const someone = await createUserWithKey(server);
    const set = await createSet({ permissions: { users: { can_use_api: true } } });
    expect((await setRole(someone.user.id, set.id)).status).toBe(200);
    expectError(await call(server, 'GET', '/users', { as: someone.creds }), 403, 'forbidden');
    const own = await call(server, 'GET', `/users/${someone.user.id}`, { as: someone.creds });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: someone.user.id, permission_set_id: set.id });
    // Without users.show, another user is out of reach.
    expectError(await call(server, 'GET', `/users/${adminId}`, { as: someone.creds }), 403, 'forbidden');

    // Granting users.index on the set applies at once too.
    expect((await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { permissions: { users: { index: true } } } })).status).toBe(200);
    expect((await call(server, 'GET', '/users', { as: someone.creds })).status).toBe(200);

    // users.add_roles lets a non-administrator create sets; changing users' roles stays with Admins.
    const name = `Delegated ${tag()}`;
    expectError(await call(server, 'POST', '/permission_sets', { as: someone.creds, body: { name } }), 403, 'forbidden');
    expect((await call(server, 'PUT', `/permission_sets/${set.id}`, { body: { permissions: { users: { add_roles: true, edit_roles: true } } } })).status).toBe(200);
    const created = await call(server, 'POST', '/permission_sets', { as: someone.creds, body: { name } });
    expect(created.status).toBe(201);
    expectError(
      await call(server, 'PUT', `/users/${someone.user.id}/role`, { as: someone.creds, body: { permission_set_id: created.body.id } }),
      403,
      'forbidden',
    );
    expect((await call(server, 'GET', `/users/${someone.user.id}`)).body.permission_set_id).toBe(set.id);
  });

  it('promotes to Admins: the user may then change roles; the last administrator cannot be demoted', async () => {
    // The bootstrap administrator is the only one.
    expect((await call(server, 'GET', `/users?role=${defaults.Admins.id}`)).body.total_items).toBe(1);
    expectError(await setRole(adminId, defaults.Members.id), 409, 'last_admin');
    expect((await call(server, 'GET', `/users/${adminId}`)).body.permission_set_id).toBe(defaults.Admins.id);
    // Moving an administrator to Admins again is not a demotion.
    expect((await setRole(adminId, defaults.Admins.id)).status).toBe(200);

    const second = await createUserWithKey(server);
    expect((await setRole(second.user.id, defaults.Admins.id)).status).toBe(200);
    const target = await createUser(server);
    const byNewAdmin = await call(server, 'PUT', `/users/${target.id}/role`, {
      as: second.creds,
      body: { permission_set_id: defaults.Visitors.id },
    });
    expect(byNewAdmin.status).toBe(200);
    expect(byNewAdmin.body.permission_set_id).toBe(defaults.Visitors.id);

    // Two administrators: the new one can step down (by the other's hand), and then the first is the last again.
    expect((await setRole(second.user.id, defaults.Members.id)).status).toBe(200);
    expectError(await setRole(adminId, defaults.Visitors.id), 409, 'last_admin');
    expect((await call(server, 'GET', `/users?role=Admins`)).body.items.map((u: { id: string }) => u.id)).toEqual([adminId]);
  });

  it('lets only one of two concurrent demotions of the last two administrators through', async () => {
    const other = await createUserWithKey(server);
    expect((await setRole(other.user.id, defaults.Admins.id)).status).toBe(200);
    // Each administrator demotes the other at the same time.
    const results = await Promise.all([
      call(server, 'PUT', `/users/${adminId}/role`, { as: other.creds, body: { permission_set_id: defaults.Members.id } }),
      setRole(other.user.id, defaults.Members.id),
    ]);
    // The loser is refused either as the last administrator (409) or, if the winner demoted them first, as a non-administrator (403).
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const admins = await call(server, 'GET', `/users?role=${defaults.Admins.id}`, { as: other.creds });
    expect(admins.status).toBe(200);
    expect(admins.body.total_items).toBe(1);
    // If the bootstrap administrator was the one demoted, the other puts it back and steps down.
    if (admins.body.items[0].id !== adminId) {
      const back = await call(server, 'PUT', `/users/${adminId}/role`, { as: other.creds, body: { permission_set_id: defaults.Admins.id } });
      expect(back.status).toBe(200);
      expect((await setRole(other.user.id, defaults.Members.id)).status).toBe(200);
    }
  });
});

describe('GET /permission_sets paging', () => {
  it('pages with per_page and refuses per_page beyond 100 with 400', async () => {
    const all = await listSets();
    const first = await call(server, 'GET', '/permission_sets?per_page=2&page=1');
    const second = await call(server, 'GET', '/permission_sets?per_page=2&page=2');
    expect(first.body.total_items).toBe(all.length);
    expect([...first.body.items, ...second.body.items].map((s: PermissionSet) => s.id)).toEqual(all.slice(0, 4).map((s) => s.id));
    expectError(await call(server, 'GET', '/permission_sets?per_page=101'), 400, 'invalid_query');
  });
});
