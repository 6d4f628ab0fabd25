import { describe, expect, it } from 'vitest';
import { LATIN_LOOKALIKES } from '../../src/shared/latin-lookalikes.js';
import { useApp } from '../helpers/app.js';

/**
 * A role's name is shown beside users as who they are: one that looks like another must not pass for it. Names are
 * one whatever their case and compatibility form (a fullwidth `Ａｄｍｉｎｓ` is `Admins`), as nicknames are, and
 * whatever Cyrillic or Greek letters stand in for Latin ones they look like (`Аdmins` with a Cyrillic А), and hold
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

  it('takes a name with Cyrillic or Greek letters that look like Latin ones for the Latin name: 409, nothing created', async () => {
    const before = (await t.ok('GET', '/permission_sets')).total_items;
    for (const name of [
      '\u0410dmins', // Cyrillic А
      'Adm\u0456ns', // Cyrillic і
      '\u0391DMINS', // Greek Α, in capitals
      '\u0430dm\u0456n\u0455', // Cyrillic а, і, ѕ, whatever the case
      '\uff21dm\u0456ns', // fullwidth A and Cyrillic і
    ]) {
      const res = await t.call('POST', '/permission_sets', { body: { name } });
      expect(res.status, JSON.stringify(name)).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'conflict', message: 'A permission set already exists with that name' });
    }
    expect((await t.ok('GET', '/permission_sets')).total_items).toBe(before);

    // A renaming too; accents kept: a Cyrillic Е with an acute is an É.
    const editors = await t.ok('POST', '/permission_sets', undefined, { name: '\u00c9diteurs' });
    const other = await t.ok('POST', '/permission_sets', undefined, { name: 'Relecteurs' });
    for (const name of ['\u0415\u0301diteurs', '\u0415\u0301DITEURS'])
      expect((await t.call('PUT', `/permission_sets/${other.id}`, { body: { name } })).status, name).toBe(409);
    expect((await t.ok('GET', `/permission_sets/${other.id}`)).name).toBe('Relecteurs');
    // A role may take a lookalike spelling of its own name.
    expect((await t.ok('PUT', `/permission_sets/${editors.id}`, undefined, { name: '\u0415\u0301diteurs' })).name).toBe('\u0415\u0301diteurs');

    // Greek Ν looks like N, its small ν like v: each is read in the case it looks alike in.
    await t.ok('POST', '/permission_sets', undefined, { name: 'Newsroom' });
    await t.ok('POST', '/permission_sets', undefined, { name: 'Reviewers' });
    for (const name of ['\u039dewsroom', 'Re\u03bdiewers'])
      expect((await t.call('POST', '/permission_sets', { body: { name } })).status, name).toBe(409);
    // Letters the table gained with nicknames: Cyrillic Ѵ and ѵ, Greek Ϝ (digamma) and Ϻ (san) read as V, v, F and M.
    await t.ok('POST', '/permission_sets', undefined, { name: 'Volunteers' });
    await t.ok('POST', '/permission_sets', undefined, { name: 'Facilitators' });
    await t.ok('POST', '/permission_sets', undefined, { name: 'Mentors' });
    for (const name of ['\u0474olunteers', '\u0475olunteers', '\u03dcacilitators', '\u03faentors'])
      expect((await t.call('POST', '/permission_sets', { body: { name } })).status, name).toBe(409);
    // A small Cyrillic в does not look like b: `вoss` is not `Boss`, but it is `Вoss` (its capital, which does).
    await t.ok('POST', '/permission_sets', undefined, { name: 'Boss' });
    await t.ok('POST', '/permission_sets', undefined, { name: '\u0432oss' });
    expect((await t.call('POST', '/permission_sets', { body: { name: '\u0412oss' } })).status).toBe(409);
  });

  it('keeps names written in Cyrillic or Greek apart from Latin ones that do not look the same', async () => {
    await t.ok('POST', '/permission_sets', undefined, { name: 'Moderators of the south' });
    for (const name of ['\u041c\u043e\u0434\u0435\u0440\u0430\u0442\u043e\u0440\u044b', '\u0395\u03c0\u03cc\u03c0\u03c4\u03b5\u03c2'])
      expect((await t.call('POST', '/permission_sets', { body: { name } })).status, name).toBe(201);
  });

  it('lists in its table only Cyrillic or Greek letters, each read as one Latin letter', () => {
    expect(LATIN_LOOKALIKES.size).toBeGreaterThan(40);
    for (const [from, to] of LATIN_LOOKALIKES) {
      expect(from, `U+${from.codePointAt(0)!.toString(16)}`).toMatch(/^[\p{Script=Cyrillic}\p{Script=Greek}]$/u);
      expect(to).toMatch(/^[A-Za-z]$/);
    }
  });
});
