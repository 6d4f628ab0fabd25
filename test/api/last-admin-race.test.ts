import { expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/**
 * The last Admin who is not suspended stays one (docs/api.md), also when a promotion, a suspension and a demotion
 * come at once. The bootstrap Admin is suspended first, so that A is the only Admin who acts.
 */
const t = useApp();

it('never leaves no unsuspended Admin when Y is promoted and suspended while the last other Admin is demoted', async () => {
  const a = await t.member();
  const y = await t.member();
  const sets = (await t.call('GET', '/permission_sets?per_page=100')).body.items as { id: string; name: string }[];
  const admins = sets.find((s) => s.name === 'Admins')!.id;
  const members = sets.find((s) => s.name === 'Members')!.id;
  expect((await t.call('PUT', `/users/${a.user.id}/role`, { body: { permission_set_id: admins } })).status).toBe(200);
  expect((await t.call('PUT', `/users/${t.admin.id}/suspension`, { as: a.creds, body: { reason: 'out of the way' } })).status).toBe(200);
  for (let round = 0; round < 20; round++) {
    const answers = await Promise.all([
      t.call('PUT', `/users/${y.user.id}/role`, { as: a.creds, body: { permission_set_id: admins } }),
      t.call('PUT', `/users/${y.user.id}/suspension`, { as: a.creds, body: { reason: 'race' } }),
      t.call('PUT', `/users/${a.user.id}/role`, { as: a.creds, body: { permission_set_id: members } }),
    ]);
    const acting = await t.store.users.adminIds(new Date().toISOString());
    expect(acting, JSON.stringify(answers.map((res) => [res.status, res.body.error?.code]))).not.toEqual([]);
    // Back to the start: A the one acting Admin, Y a Member not suspended.
    const actor = acting.includes(a.user.id) ? a.creds : y.creds;
    await t.call('PUT', `/users/${a.user.id}/role`, { as: actor, body: { permission_set_id: admins } });
    await t.call('DELETE', `/users/${y.user.id}/suspension`, { as: a.creds });
    expect((await t.call('PUT', `/users/${y.user.id}/role`, { as: a.creds, body: { permission_set_id: members } })).status).toBe(200);
  }
}, 120_000);
