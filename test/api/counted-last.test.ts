import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

/**
 * Follows and statuses last (src/domain/README.md): a follow and a status are written after everything else their
 * transaction writes (the notification, the fan-out job), so that on PostgreSQL the counts every writer of the list
 * shares are locked only for the last statement and the commit; accepting a request or an invite writes the
 * member's follow after the notification too, so that no two transactions take a notification counter and the
 * follows' counts in opposite orders. Read from the statements each request ran; a refused follow (409) leaves
 * nothing behind, its notification included.
 */
let t: TestApp;
let log: string[] = [];
let owner: Awaited<ReturnType<TestApp['member']>>;
let fan: Awaited<ReturnType<TestApp['member']>>;
let page: string;

beforeAll(async () => {
  // No fan-out worker: its batches would write notifications while a request is being read.
  t = await startApp({ storeOptions: { onQuery: (sql) => log.push(sql) }, fanOut: { autoStart: false } });
  [owner, fan] = [await t.member(), await t.member()];
  const config = (await t.call('POST', '/page_configurations', { body: { name: 'Counted' } })).body.id;
  page = (await t.call('POST', '/pages', { as: owner.creds, body: { name: 'Counted', privacy: 'public', page_configuration_id: config, user_id: owner.user.id } })).body.id;
});
afterAll(() => t.close());

/** The tables a request inserted into, in the order of its statements. */
async function writesOf(run: () => Promise<{ status: number }>, status = 201): Promise<string[]> {
  log = [];
  expect((await run()).status).toBe(status);
  return log.flatMap((sql) => {
    const table = /^\s*insert into\s+"(\w+)"/i.exec(sql)?.[1];
    return table ? [table] : [];
  });
}

const notificationsOf = async (who: typeof owner) =>
  (await t.call('GET', `/users/${who.user.id}/notifications`, { as: who.creds })).body.total_items as number;

describe('follows and statuses last', () => {
  it('a follow writes its notification, then the follow', async () => {
    const follow = () => t.call('POST', '/follows', { as: fan.creds, body: { user_id: fan.user.id, followable_type: 'Page', followable_id: page } });
    const writes = await writesOf(follow);
    expect(writes).toContain('notifications');
    expect(writes.at(-1)).toBe('follows');
    // Again: 409, and the notification written before the refused insert is gone with it.
    const before = await notificationsOf(owner);
    expect((await follow()).status).toBe(409);
    expect(await notificationsOf(owner)).toBe(before);
  });

  it('a status writes its fan-out job, then the status', async () => {
    const writes = await writesOf(() => t.call('POST', '/statuses', { as: owner.creds, body: { user_id: owner.user.id, content: 'Counted', page_id: page } }));
    expect(writes).toContain('notification_jobs');
    expect(writes.at(-1)).toBe('statuses');
  });

  it("accepting a request or an invite writes the notification, then the member's follow", async () => {
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Private' } })).body.id;
    const club = (await t.call('POST', '/pages', { as: owner.creds, body: { name: 'Club', privacy: 'private', page_configuration_id: config, user_id: owner.user.id } })).body.id;
    const asked = await t.call('POST', '/page_access_requests', { as: fan.creds, body: { page_id: club, user_id: fan.user.id } });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const request = await writesOf(() => t.call('PUT', `/page_access_requests/${asked.body.id}/accept`, { as: owner.creds }), 200);
    expect(request).toContain('notifications');
    expect(request.at(-1)).toBe('follows');
    const guest = await t.member();
    const invited = await t.call('POST', '/invites', { as: owner.creds, body: { target_type: 'Page', target_id: club, user_id: owner.user.id, user_target_ids: [guest.user.id] } });
    expect(invited.body.errors, JSON.stringify(invited.body)).toEqual([]);
    const invite = await writesOf(() => t.call('PUT', `/invites/${invited.body.success[0].id}/accept`, { as: owner.creds }), 200);
    expect(invite).toContain('notifications');
    expect(invite.at(-1)).toBe('follows');
  });
});
