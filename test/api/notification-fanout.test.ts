import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir } from '../helpers/server.js';
import { openRaw } from '../helpers/store-target.js';
import { seedFollows, seedMembers, startApp, type TestApp } from '../helpers/app.js';

/**
 * The fan-out of a status to a page's members: recorded with the status, carried out in batches after it,
 * each member notified exactly once, also across a restart in the middle.
 */

const MEMBERS = 1500;
/** Fan-out jobs not yet carried out. */
const pendingJobs = async (app: TestApp) =>
  Number((await app.store.db.selectFrom('notification_jobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

/** How many notifications of one status each user has, read straight from the store. */
async function notifiedCounts(file: string, statusId: string): Promise<Map<string, number>> {
  const db = await openRaw(file, { readonly: true });
  try {
    const rows = await db.all<{ user_id: string; n: number }>(
      `select n.user_id, count(*) as n from notifications n join notification_contents c on c.id = n.content_id
       where c.notification_type = 'status' and c.target_id = ? group by n.user_id`,
      [statusId],
    );
    return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
  } finally {
    await db.close();
  }
}

async function pageWithMembers(t: TestApp, count: number) {
  const owner = await t.member();
  const config = await t.call('POST', '/page_configurations', { body: { name: 'Big' } });
  const page = await t.call('POST', '/pages', {
    as: owner.creds,
    body: { name: 'Big page', privacy: 'public', page_configuration_id: config.body.id, user_id: owner.user.id },
  });
  const members = await seedMembers(t.store, count, t.clock().toISOString());
  await seedFollows(t.store, members, 'Page', page.body.id, t.clock().toISOString());
  return { owner, pageId: page.body.id as string, members };
}

describe('notification fan-out', () => {
  it('notifies every member of a large page exactly once, in batches, and never the author', async () => {
    const t = await startApp({ fanOut: { batchSize: 200 } });
    dirs.push(t.dir);
    try {
      const { owner, pageId, members } = await pageWithMembers(t, MEMBERS);
      const res = await t.call('POST', '/statuses', { as: owner.creds, body: { user_id: owner.user.id, content: 'To everyone', page_id: pageId } });
      expect(res.status).toBe(201);
      await t.app.fanOut.drain();
      const counts = await notifiedCounts(t.file, res.body.id);
      expect(counts.size).toBe(MEMBERS);
      for (const id of members) expect(counts.get(id)).toBe(1);
      expect(counts.has(owner.user.id)).toBe(false);
      // The counters agree with the rows.
      const sample = members[MEMBERS - 1]!;
      const list = await t.call('GET', `/users/${sample}/notifications?status=unseen`);
      expect(list.headers['x-total-count']).toBe('1');
      expect(list.body[0]).toMatchObject({ notification_type: 'status', target_id: res.body.id, final_target_id: pageId });
      expect(await pendingJobs(t)).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('carries on after a restart in the middle of a fan-out: nobody missed, nobody twice', async () => {
    const first = await startApp({ fanOut: { batchSize: 50 } });
    dirs.push(first.dir);
    const { owner, pageId } = await pageWithMembers(first, MEMBERS);
    const res = await first.call('POST', '/statuses', { as: owner.creds, body: { user_id: owner.user.id, content: 'Half way', page_id: pageId } });
    expect(res.status).toBe(201);
    // Stop the server once part of the audience is notified (the worker yields between batches).
    for (let i = 0; i < 500 && (await notifiedCounts(first.file, res.body.id)).size < 100; i++) await sleep(5);
    await first.close();
    const partway = (await notifiedCounts(first.file, res.body.id)).size;
    expect(partway).toBeGreaterThan(0);
    expect(partway).toBeLessThan(MEMBERS);

    const second = await startApp({ dir: first.dir, fanOut: { batchSize: 50 } });
    try {
      await second.app.fanOut.drain();
      const counts = await notifiedCounts(second.file, res.body.id);
      expect(counts.size).toBe(MEMBERS);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      expect(await pendingJobs(second)).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('leaves a job recorded but not started to the next process (nothing lost between commit and fan-out)', async () => {
    const first = await startApp({ fanOut: { autoStart: false } });
    dirs.push(first.dir);
    const { owner, pageId } = await pageWithMembers(first, 20);
    const res = await first.call('POST', '/statuses', { as: owner.creds, body: { user_id: owner.user.id, content: 'Queued', page_id: pageId } });
    await first.close();
    expect((await notifiedCounts(first.file, res.body.id)).size).toBe(0);
    const second = await startApp({ dir: first.dir });
    try {
      await second.app.fanOut.drain();
      expect((await notifiedCounts(second.file, res.body.id)).size).toBe(20);
    } finally {
      await second.close();
    }
  });
});
