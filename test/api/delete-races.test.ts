import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/**
 * The same DELETE sent many times at once acts once: one 204, the others 404 as for a record already gone, and
 * one audit entry (one webhook occurrence) only. On PostgreSQL each used to read the record before any deleted
 * it, and each answered 204 with its own audit entry.
 */
const t = useApp();

const statuses = (rs: { status: number }[]) => rs.map((r) => r.status).sort();
const ten = <T>(f: () => Promise<T>) => Promise.all(Array.from({ length: 10 }, f));

describe('racing DELETEs', () => {
  it('of a webhook: one 204, nine 404, one webhook.delete entry', async () => {
    const hook = await t.call('POST', '/webhooks', { body: { url: 'https://example.com/hook', events: ['invite.created'] } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    expect(statuses(await ten(() => t.call('DELETE', `/webhooks/${hook.body.id}`)))).toEqual([204, ...Array(9).fill(404)]);
    expect((await t.call('GET', `/audit_log?action=webhook.delete&target_id=${hook.body.id}`)).body.total_items).toBe(1);
  });

  it('of an invite: one 204, nine 404, one invite.withdraw entry', async () => {
    const [owner, guest] = [await t.member(), await t.member()];
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Races' } })).body.id;
    const page = await t.call('POST', '/pages', { as: owner.creds, body: { name: 'Race club', privacy: 'private', page_configuration_id: config, user_id: owner.user.id } });
    const sent = await t.call('POST', '/invites', {
      as: owner.creds,
      body: { user_id: owner.user.id, target_type: 'Page', target_id: page.body.id, user_target_ids: [guest.user.id] },
    });
    const id = sent.body.success[0].id as string;
    expect(statuses(await ten(() => t.call('DELETE', `/invites/${id}`, { as: owner.creds })))).toEqual([204, ...Array(9).fill(404)]);
    expect((await t.call('GET', `/audit_log?action=invite.withdraw&target_id=${id}`)).body.total_items).toBe(1);
  });

  it('of a follow: one 204, nine 404', async () => {
    const [a, b] = [await t.member(), await t.member()];
    const follow = await t.call('POST', '/follows', { as: a.creds, body: { user_id: a.user.id, followable_type: 'User', followable_id: b.user.id } });
    expect(statuses(await ten(() => t.call('DELETE', `/follows/${follow.body.id}`, { as: a.creds })))).toEqual([204, ...Array(9).fill(404)]);
  });
});
