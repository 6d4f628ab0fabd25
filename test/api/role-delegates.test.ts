import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/**
 * A delegate (a role other than Admins holding users.add_roles and users.edit_roles) administers roles within what
 * their own role grants: they may not turn on an action they do not hold, in their own role nor in one they create
 * (an Admin could then give it out without noticing), nor change a role that grants more than theirs (the Admins set,
 * a default one) at all. Turning actions off, or leaving them as they are, on a role within theirs stays theirs.
 * Admins keep every power.
 */
const t = useApp();

type Perms = Record<string, Record<string, boolean>>;
type Role = { id: string; name: string; show_as_tagline: boolean; permissions: Perms };

const DELEGATE_GRANTS = { users: { can_use_api: true, index: true, show: true, add_roles: true, edit_roles: true }, statuses: { index: true } };

let delegate: Awaited<ReturnType<typeof t.member>>;
let own: Role;
let admins: Role;

const role = (id: string): Promise<Role> => t.ok('GET', `/permission_sets/${id}`);
const roles = async (): Promise<Role[]> => (await t.ok('GET', '/permission_sets?per_page=100')).items;
/** What the audit log holds of the delegate's acts. */
const delegateAudit = async () => (await t.ok('GET', `/audit_log?actor_id=${delegate.user.id}&per_page=100`)).items as { summary: string }[];

function expectRefused(res: { status: number; body: any }, message: string | RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.error.code).toBe('forbidden');
  expect(res.body.error.message).toMatch(message);
}

beforeAll(async () => {
  delegate = await t.member();
  own = await t.ok('POST', '/permission_sets', undefined, { name: 'Role managers', permissions: DELEGATE_GRANTS });
  await t.ok('PUT', `/users/${delegate.user.id}/role`, undefined, { permission_set_id: own.id });
  admins = (await roles()).find((r) => r.name === 'Admins')!;
});

describe('a delegate with users.edit_roles', () => {
  it('cannot widen their own role: 403 naming the first action they do not hold, nothing written or logged', async () => {
    const logged = await delegateAudit();
    const alone = await t.call('PUT', `/permission_sets/${own.id}`, { as: delegate.creds, body: { permissions: { users: { destroy: true } } } });
    expectRefused(alone, 'Your role does not grant users.destroy: you cannot give it to a role');
    // Several, beside a rename, an action turned off and one they hold: the first in the catalogue's order is named,
    // and none of the rest is written either.
    const mixed = await t.call('PUT', `/permission_sets/${own.id}`, {
      as: delegate.creds,
      body: {
        name: 'Everything managers',
        show_as_tagline: true,
        permissions: { users: { destroy: true, show: false, index: true }, statuses: { moderate: true }, posts: { any: true } },
      },
    });
    expectRefused(mixed, 'Your role does not grant posts.any: you cannot give it to a role');
    expect(await role(own.id)).toEqual(own);
    expect(await delegateAudit()).toEqual(logged);
    // Still refused the next time: their role did not change.
    expectRefused(
      await t.call('PUT', `/permission_sets/${own.id}`, { as: delegate.creds, body: { permissions: { users: { export: true } } } }),
      /users\.export/,
    );
  });

  it('cannot widen a role an Admin made within their grants', async () => {
    const other = await t.ok('POST', '/permission_sets', undefined, { name: 'Readers', permissions: { users: { index: true } } });
    const before = await role(other.id);
    expectRefused(
      await t.call('PUT', `/permission_sets/${other.id}`, { as: delegate.creds, body: { permissions: { users: { import: true } } } }),
      'Your role does not grant users.import: you cannot give it to a role',
    );
    expect(await role(other.id)).toEqual(before);
  });

  it('cannot create a role granting more than they hold: 403, nothing created', async () => {
    const count = (await roles()).length;
    const res = await t.call('POST', '/permission_sets', {
      as: delegate.creds,
      body: { name: 'Wider', permissions: { users: { index: true, destroy_roles: true } } },
    });
    expectRefused(res, 'Your role does not grant users.destroy_roles: you cannot give it to a role');
    expect((await roles()).length).toBe(count);
    expect((await roles()).map((r) => r.name)).not.toContain('Wider');
  });

  it('cannot change the Admins set in any way, not even taking actions from it', async () => {
    const logged = await delegateAudit();
    for (const body of [
      { permissions: { posts: { seo: false } } },
      { permissions: { users: { edit_roles: false } } },
      { show_as_tagline: true },
      { name: 'Admins' },
      {},
    ]) {
      const res = await t.call('PUT', `/permission_sets/${admins.id}`, { as: delegate.creds, body });
      expectRefused(res, 'Only project administrators (role Admins) may change the Admins set');
    }
    expect(await role(admins.id)).toEqual(admins);
    expect(await delegateAudit()).toEqual(logged);
  });

  it('cannot change a role granting more than theirs, a default one included, not even its name', async () => {
    // Renamed "Members" (the real one renamed first), a wider role would be given by an Admin meaning the Members.
    const wide = await t.ok('POST', '/permission_sets', undefined, { name: 'Wide', permissions: { users: { index: true, destroy: true } } });
    const members = (await roles()).find((r) => r.name === 'Members')!;
    const logged = await delegateAudit();
    for (const body of [{ name: 'Members' }, { show_as_tagline: true }, { permissions: { users: { destroy: false } } }, {}])
      expectRefused(
        await t.call('PUT', `/permission_sets/${wide.id}`, { as: delegate.creds, body }),
        'This role grants users.destroy, which your role does not: only project administrators (role Admins) may change it',
      );
    for (const body of [{ name: 'Old members' }, { permissions: { users: { import: true } } }])
      expectRefused(await t.call('PUT', `/permission_sets/${members.id}`, { as: delegate.creds, body }), /^This role grants posts\.\w+, which your role does not/);
    expect(await role(wide.id)).toEqual(wide);
    expect(await role(members.id)).toEqual(members);
    expect(await delegateAudit()).toEqual(logged);
  });

  it('with users.destroy_roles, cannot delete a role granting more than theirs; one within theirs, yes', async () => {
    // An Admin's role made ready to give out, not given yet: deleted, it would be made again by hand or not at all.
    const wide = await t.ok('POST', '/permission_sets', undefined, { name: 'Moderators to come', permissions: { users: { index: true, destroy: true } } });
    const narrow = await t.ok('POST', '/permission_sets', undefined, { name: 'Readers to come', permissions: { users: { index: true } } });
    const destroyer = await t.member();
    const theirs = await t.ok('POST', '/permission_sets', undefined, { name: 'Role cleaners', permissions: { ...DELEGATE_GRANTS, users: { ...DELEGATE_GRANTS.users, destroy_roles: true } } });
    await t.ok('PUT', `/users/${destroyer.user.id}/role`, undefined, { permission_set_id: theirs.id });
    const logged = (await t.ok('GET', `/audit_log?actor_id=${destroyer.user.id}`)).items;
    expectRefused(
      await t.call('DELETE', `/permission_sets/${wide.id}`, { as: destroyer.creds }),
      'This role grants users.destroy, which your role does not: only project administrators (role Admins) may change it',
    );
    expect(await role(wide.id)).toEqual(wide);
    expect((await t.ok('GET', `/audit_log?actor_id=${destroyer.user.id}`)).items).toEqual(logged);
    expect((await t.call('DELETE', `/permission_sets/${narrow.id}`, { as: destroyer.creds })).status).toBe(204);
    // An Admin deletes any role not in use.
    expect((await t.call('DELETE', `/permission_sets/${wide.id}`)).status).toBe(204);
  });

  it('can still narrow a role within their grants, rename it, and give what they hold', async () => {
    const within = await t.ok('POST', '/permission_sets', undefined, { name: 'Within', permissions: { users: { index: true, show: true, add_roles: true } } });
    const narrowed = await t.ok('PUT', `/permission_sets/${within.id}`, delegate, { permissions: { users: { add_roles: false, index: true, can_use_api: true } } });
    expect(narrowed.permissions.users).toMatchObject({ index: true, show: true, add_roles: false, can_use_api: true, destroy: false });
    // Renaming and the tagline are no grant.
    expect((await t.ok('PUT', `/permission_sets/${within.id}`, delegate, { name: 'Narrow', show_as_tagline: true })).name).toBe('Narrow');
    expect((await delegateAudit()).map((e) => e.summary)).toContain('updated the role Within (now Narrow): name, show_as_tagline');
  });

  it('can create a role within their own grants, and narrow their own', async () => {
    const made = await t.ok('POST', '/permission_sets', delegate, {
      name: 'Helpers',
      permissions: { users: { can_use_api: true, index: true, add_roles: true }, statuses: { index: true } },
    });
    expect(made.permissions.users).toMatchObject({ can_use_api: true, index: true, add_roles: true, destroy: false });
    const mine = await t.ok('POST', '/permission_sets', undefined, { name: 'Narrowing managers', permissions: DELEGATE_GRANTS });
    const someone = await t.member();
    await t.ok('PUT', `/users/${someone.user.id}/role`, undefined, { permission_set_id: mine.id });
    const narrowed = await t.ok('PUT', `/permission_sets/${mine.id}`, someone, { permissions: { statuses: { index: false } } });
    expect(narrowed.permissions.statuses.index).toBe(false);
    // What they gave up is no longer theirs to give.
    expectRefused(
      await t.call('PUT', `/permission_sets/${mine.id}`, { as: someone.creds, body: { permissions: { statuses: { index: true } } } }),
      'Your role does not grant statuses.index: you cannot give it to a role',
    );
  });
});

describe('an Admin', () => {
  it('still creates and widens any role and edits the Admins set', async () => {
    const all = await t.ok('POST', '/permission_sets', undefined, {
      name: 'Almost admins',
      permissions: { users: { destroy: true, import: true }, posts: { any: true }, statuses: { moderate: true } },
    });
    expect(all.permissions.users.destroy).toBe(true);
    const theirs = await t.ok('POST', '/permission_sets', undefined, { name: 'Growing managers', permissions: DELEGATE_GRANTS });
    const someone = await t.member();
    await t.ok('PUT', `/users/${someone.user.id}/role`, undefined, { permission_set_id: theirs.id });
    expectRefused(
      await t.call('POST', '/permission_sets', { as: someone.creds, body: { name: 'Exporters', permissions: { users: { export: true } } } }),
      /users\.export/,
    );
    const wider = await t.ok('PUT', `/permission_sets/${theirs.id}`, undefined, { permissions: { users: { export: true } } });
    expect(wider.permissions.users.export).toBe(true);
    // Their role grants users.export now: they may give it.
    const exporters = await t.ok('POST', '/permission_sets', someone, { name: 'Exporters', permissions: { users: { export: true } } });
    expect(exporters.permissions.users.export).toBe(true);
    // Even an action the Admins set no longer grants: Admins give any.
    await t.ok('PUT', `/permission_sets/${admins.id}`, undefined, { permissions: { posts: { seo: false } } });
    expect((await role(admins.id)).permissions.posts!.seo).toBe(false);
    expect((await t.ok('POST', '/permission_sets', undefined, { name: 'Seo', permissions: { posts: { seo: true } } })).permissions.posts.seo).toBe(true);
    expect((await t.ok('PUT', `/permission_sets/${exporters.id}`, undefined, { permissions: { posts: { seo: true } } })).permissions.posts.seo).toBe(true);
    await t.ok('PUT', `/permission_sets/${admins.id}`, undefined, { permissions: { posts: { seo: true } } });
    expect((await role(admins.id)).permissions).toEqual(admins.permissions);
  });
});
