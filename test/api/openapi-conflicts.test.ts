import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { PREFIX, type Credentials } from '../helpers/server.js';

/**
 * Every 409 the server answers is in the document it serves, under the operation that answers it and with its code
 * among that 409's examples (docs/api.md, "Generating a client": each operation has its 4xx responses). Without it a
 * generated client has no type for a conflict a caller meets every day: a report settled by someone else first, an
 * Admin suspending themselves, admitting a suspended user.
 */
const t = useApp();
type Who = { user: { id: string; nickname: string }; creds: Credentials };

let doc: any;
let configId: string;
beforeAll(async () => {
  doc = (await t.call('GET', '/openapi.json', { as: null })).body;
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Conflicts' } })).body.id;
});

/** The answer must be a 409 with `code`, and the document must list that 409, naming `code`, for `method` `template`. */
function expectDocumented(res: { status: number; body: any }, method: string, template: string, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(409);
  expect(res.body.error.code).toBe(code);
  const op = doc.paths[PREFIX + template]?.[method.toLowerCase()];
  expect(op, `${method} ${template}`).toBeDefined();
  const conflict = op.responses['409'];
  expect(conflict, `${op.operationId} lists no 409`).toBeDefined();
  expect(Object.keys(conflict.content['application/json'].examples), op.operationId).toContain(code);
}

const page = async (owner: Who, privacy: string) =>
  (await t.call('POST', '/pages', { as: owner.creds, body: { name: `${privacy} room`, privacy, page_configuration_id: configId, user_id: owner.user.id } }))
    .body as { id: string };
const report = async (by: Who, target: string) =>
  (await t.ok('POST', '/reports', by, { user_id: by.user.id, target_type: 'User', target_id: target, reason: 'spam' })) as { id: string };
const suspend = (who: Who) => t.ok('PUT', `/users/${who.user.id}/suspension`, undefined, { reason: 'spam' });

describe('the 409s in the document', () => {
  it('suspend_user: an Admin suspending themselves', async () => {
    const res = await t.call('PUT', `/users/${t.admin.id}/suspension`, { body: { reason: 'me' } });
    expectDocumented(res, 'PUT', '/users/{user_id}/suspension', 'cannot_suspend_self');
  });

  it('set_user_role: demoting the last Admin', async () => {
    const members = (await t.call('GET', '/permission_sets?name=Members')).body.items[0].id;
    const res = await t.call('PUT', `/users/${t.admin.id}/role`, { body: { permission_set_id: members } });
    expectDocumented(res, 'PUT', '/users/{user_id}/role', 'last_admin');
  });

  it('resolve_report and dismiss_report: a report already settled; resolve suspending the Admin who settles', async () => {
    const [ann, bob] = [await t.member(), await t.member()];
    const first = await report(ann, bob.user.id);
    await t.ok('PUT', `/reports/${first.id}/dismiss`);
    expectDocumented(await t.call('PUT', `/reports/${first.id}/resolve`, { body: { action: 'none' } }), 'PUT', '/reports/{id}/resolve', 'conflict');
    expectDocumented(await t.call('PUT', `/reports/${first.id}/dismiss`), 'PUT', '/reports/{id}/dismiss', 'conflict');
    const onAdmin = await report(ann, t.admin.id);
    const res = await t.call('PUT', `/reports/${onAdmin.id}/resolve`, { body: { action: 'suspend', reason: 'spam' } });
    expectDocumented(res, 'PUT', '/reports/{id}/resolve', 'cannot_suspend_self');
  });

  it('create_follow, accept_page_access_request, accept_invite: a suspended user', async () => {
    const [owner, asker, invited, target] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const privatePage = await page(owner, 'private');
    const request = await t.ok('POST', '/page_access_requests', asker, { page_id: privatePage.id, user_id: asker.user.id });
    const invites = await t.ok('POST', '/invites', owner, {
      target_type: 'Page',
      target_id: privatePage.id,
      user_id: owner.user.id,
      user_target_ids: [invited.user.id],
    });
    for (const who of [asker, invited, target]) await suspend(who);
    const follow = await t.call('POST', '/follows', { body: { followable_type: 'User', followable_id: target.user.id, user_id: t.admin.id } });
    expectDocumented(follow, 'POST', '/follows', 'user_suspended');
    const accepted = await t.call('PUT', `/page_access_requests/${request.id}/accept`);
    expectDocumented(accepted, 'PUT', '/page_access_requests/{id}/accept', 'user_suspended');
    const invite = await t.call('PUT', `/invites/${invites.success[0].id}/accept`);
    expectDocumented(invite, 'PUT', '/invites/{id}/accept', 'user_suspended');
  });
});
