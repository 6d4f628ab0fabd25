import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

/**
 * Counted rows last (src/domain/README.md): a follow, a status, a comment and a like write the row that kept
 * counts count after everything else they write (the notification, the fan-out job), so that on PostgreSQL the
 * counts every writer of the list shares are locked only for the last statement and the commit. Read from the
 * statements each request ran; a refused follow or like (409) leaves nothing behind, its notification included.
 */
let t: TestApp;
let log: string[] = [];
let owner: Awaited<ReturnType<TestApp['member']>>;
let fan: Awaited<ReturnType<TestApp['member']>>;
let page: string;

beforeAll(async () => {
  t = await startApp({ storeOptions: { onQuery: (sql) => log.push(sql) } });
  [owner, fan] = [await t.member(), await t.member()];
  const config = (await t.call('POST', '/page_configurations', { body: { name: 'Counted' } })).body.id;
  page = (await t.call('POST', '/pages', { as: owner.creds, body: { name: 'Counted', privacy: 'public', page_configuration_id: config, user_id: owner.user.id } })).body.id;
});
afterAll(() => t.close());

/**
 * The tables a request inserted into (or whose counts it moved, `update statuses|comments`), in the order of its
 * statements; the fan-out worker's claims of its job, which may run as the request ends, are updates of another table.
 */
async function writesOf(run: () => Promise<{ status: number }>, status = 201): Promise<string[]> {
  log = [];
  expect((await run()).status).toBe(status);
  return log.flatMap((sql) => {
    const table = /^\s*(?:insert into\s+"(\w+)"|update\s+"(statuses|comments)")/i.exec(sql)?.slice(1).find(Boolean);
    return table ? [table] : [];
  });
}

const notificationsOf = async (who: typeof owner) =>
  (await t.call('GET', `/users/${who.user.id}/notifications`, { as: who.creds })).body.total_items as number;

describe('counted rows last', () => {
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

  it('a comment and a like write their notification, then the counted row and its status or comment count', async () => {
    const status = (await t.call('POST', '/statuses', { as: owner.creds, body: { user_id: owner.user.id, content: 'Liked' } })).body.id as string;
    const comment = await writesOf(() => t.call('POST', '/comments', { as: fan.creds, body: { user_id: fan.user.id, status_id: status, content: 'hi' } }));
    expect(comment.slice(-2)).toEqual(['comments', 'statuses']);
    expect(comment).toContain('notifications');
    const like = () => t.call('POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, status_id: status } });
    const writes = await writesOf(like);
    expect(writes.slice(-2)).toEqual(['likes', 'statuses']);
    expect(writes).toContain('notifications');
    const before = await notificationsOf(owner);
    expect((await like()).status).toBe(409);
    expect(await notificationsOf(owner)).toBe(before);
    expect((await t.call('GET', `/statuses/${status}`, { as: owner.creds })).body).toMatchObject({ likes_count: 1, comments_count: 1 });
  });
});
