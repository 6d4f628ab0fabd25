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
