import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/**
 * A role's name is shown beside users as who they are: one that looks like another must not pass for it. Names are
 * one whatever their case and compatibility form (a fullwidth `Ａｄｍｉｎｓ` is `Admins`), as nicknames are, and hold
 * nothing invisible (a zero-width space, a direction mark).
 */
const t = useApp();

describe('role names', () => {
  it('refuses a name with an invisible character, creating or renaming nothing', async () => {
    const before = (await t.ok('GET', '/permission_sets')).total_items;
    for (const name of ['Admins\u200b', 'Ad\u200dmins', '\u202eAdmins', 'Admins\u2066', 'Adm\u00adins']) {
      const res = await t.call('POST', '/permission_sets', { body: { name } });
      expect(res.status, JSON.stringify(name)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual([{ field: 'name', message: expect.stringContaining('invisible') }]);
    }
    expect((await t.ok('GET', '/permission_sets')).total_items).toBe(before);
    const role = await t.ok('POST', '/permission_sets', undefined, { name: 'Gardeners' });
    const renamed = await t.call('PUT', `/permission_sets/${role.id}`, { body: { name: 'Garden\u200bers' } });
    expect(renamed.status).toBe(422);
    expect((await t.ok('GET', `/permission_sets/${role.id}`)).name).toBe('Gardeners');
  });

  it('takes a name in another compatibility form or case for the same one: taken, and found by it', async () => {
    for (const name of ['Ａｄｍｉｎｓ', 'ＡＤＭＩＮＳ', 'admins']) {
      const res = await t.call('POST', '/permission_sets', { body: { name } });
      expect(res.status, name).toBe(409);
      expect(res.body.error.message).toBe('A permission set already exists with that name');
    }
    const role = await t.ok('POST', '/permission_sets', undefined, { name: 'Moderators' });
    const other = await t.ok('POST', '/permission_sets', undefined, { name: 'Helpers' });
    expect((await t.call('PUT', `/permission_sets/${other.id}`, { body: { name: 'ｍｏｄｅｒａｔｏｒｓ' } })).status).toBe(409);
    // Looked up the way it is unique: `?name=` and `?role=` (which the CLI's `--role` sends).
    const byName = await t.ok('GET', `/permission_sets?name=${encodeURIComponent('Ｍｏｄｅｒａｔｏｒｓ')}`);
    expect(byName.items.map((r: { id: string }) => r.id)).toEqual([role.id]);
    const member = await t.member();
    await t.ok('PUT', `/users/${member.user.id}/role`, undefined, { permission_set_id: role.id });
    const byRole = await t.ok('GET', `/users?role=${encodeURIComponent('ＭＯＤＥＲＡＴＯＲＳ')}`);
    expect(byRole.items.map((u: { id: string }) => u.id)).toEqual([member.user.id]);
  });
});
