import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/** Writes that edit the same row at once: each must see the others' committed changes (no lost update). */
const t = useApp();

describe('concurrent edits of one permission set', () => {
  it('keeps every partial update when several come at once (actions left out keep their value)', async () => {
    const created = await t.call('POST', '/permission_sets', { body: { name: `race-${Date.now()}` } });
    expect(created.status).toBe(201);
    const actions = ['edit', 'index', 'create', 'show', 'destroy', 'moderate', 'seo', 'landing', 'in_profile', 'publish_as'];
    const answers = await Promise.all(
      actions.map((action) =>
        t.call('PUT', `/permission_sets/${created.body.id}`, { body: { permissions: { statuses: { [action]: true } } } }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(actions.map(() => 200));
    const after = await t.call('GET', `/permission_sets/${created.body.id}`);
    for (const action of actions) expect(after.body.permissions.statuses[action], action).toBe(true);
  });
});

describe('concurrent role changes of one user', () => {
  it('logs the change from the old role once when the same change comes several times at once', async () => {
    const role = await t.call('POST', '/permission_sets', { body: { name: `given-${Date.now()}` } });
    expect(role.status).toBe(201);
    const { user } = await t.member();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.call('PUT', `/users/${user.id}/role`, { body: { permission_set_id: role.body.id } })),
    );
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    const log = await t.call('GET', `/audit_log?target_id=${user.id}&action=user.role_change&per_page=100`);
    const fromMembers = log.body.items.filter((entry: { summary: string }) => entry.summary.includes('from Members to'));
    expect(fromMembers, JSON.stringify(log.body.items.map((e: { summary: string }) => e.summary))).toHaveLength(1);
  });
});

describe('role names created at once', () => {
  it('keeps names unique whatever their case beyond ASCII when they come at once (Équipe, ÉQUIPE)', async () => {
    const name = `Équipe-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => t.call('POST', '/permission_sets', { body: { name: i % 2 ? name.toUpperCase() : name.toLowerCase() } })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const found = await t.call('GET', `/permission_sets?name=${encodeURIComponent(name)}`);
    expect(found.body.total_items).toBe(1);
  });
});
