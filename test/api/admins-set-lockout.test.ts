import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/**
 * The Admins set may be edited, but not into a lock: `PUT /users/{id}/role` (Admins only) and `PUT /permission_sets/{id}`
 * both need users.edit_roles, so an Admins set without it left no Admin able to change a role or to give the set its
 * edit back through the API. A delegate (a non-Admin role holding users.edit_roles) may not edit the set at all.
 */
const t = useApp();

const adminsSet = async () => {
  const sets = (await t.call('GET', '/permission_sets?per_page=100')).body.items as { id: string; name: string; permissions: any }[];
  return sets.find((s) => s.name === 'Admins')!;
};

describe('the Admins set keeps what administering roles needs', () => {
  it('refuses (409) an Admin taking users.edit_roles or users.can_use_api from the Admins set, changing nothing', async () => {
    const admins = await adminsSet();
    for (const action of ['edit_roles', 'can_use_api']) {
      const res = await t.call('PUT', `/permission_sets/${admins.id}`, { body: { permissions: { users: { [action]: false } } } });
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.code).toBe('conflict');
    }
    expect((await adminsSet()).permissions).toEqual(admins.permissions);
    // Admins still change roles.
    const someone = await t.member();
    const visitors = (await t.call('GET', '/permission_sets?per_page=100')).body.items.find((s: { name: string }) => s.name === 'Visitors');
    expect((await t.call('PUT', `/users/${someone.user.id}/role`, { body: { permission_set_id: visitors.id } })).status).toBe(200);
    // Other actions of the set stay editable.
    expect((await t.call('PUT', `/permission_sets/${admins.id}`, { body: { permissions: { posts: { seo: false } } } })).status).toBe(200);
    expect((await t.call('PUT', `/permission_sets/${admins.id}`, { body: { permissions: { posts: { seo: true } } } })).status).toBe(200);
  });

  it('refuses (403) a delegate with users.edit_roles taking it from the Admins, who can then still take the delegate’s role back', async () => {
    const admins = await adminsSet();
    const delegate = await t.member();
    const role = await t.ok('POST', '/permission_sets', undefined, { name: 'Role managers', permissions: { users: { can_use_api: true, edit_roles: true } } });
    await t.ok('PUT', `/users/${delegate.user.id}/role`, undefined, { permission_set_id: role.id });
    const stripped = await t.call('PUT', `/permission_sets/${admins.id}`, { as: delegate.creds, body: { permissions: { users: { edit_roles: false } } } });
    // Only Admins change the Admins set (test/api/role-delegates), before the set's own rule is asked.
    expect(stripped.status, JSON.stringify(stripped.body)).toBe(403);
    expect((await adminsSet()).permissions.users.edit_roles).toBe(true);
    const members = (await t.call('GET', '/permission_sets?per_page=100')).body.items.find((s: { name: string }) => s.name === 'Members');
    expect((await t.call('PUT', `/users/${delegate.user.id}/role`, { body: { permission_set_id: members.id } })).status).toBe(200);
  });
});
