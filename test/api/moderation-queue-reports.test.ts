import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { queueCalls } from '../helpers/queue.js';
import type { Credentials } from '../helpers/server.js';

/** Open reports in GET /moderation_queue (docs/api.md, "Moderating content and people"): one item per reported target, beside requests and invites. */
const t = useApp();
type Who = Awaited<ReturnType<typeof t.member>>;

interface Item {
  kind: 'page_access_request' | 'invite' | 'report';
  id: string;
  created_at: string;
  user: { id: string };
  page: { id: string } | null;
  target?: { type: string; id: string; excerpt: string | null; user: { id: string } | null };
  reason?: string;
  reports?: number;
}
const { ask, queue } = queueCalls<Item>(t);

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Queue reports' } })).body.id;
});

async function page(owner: Who): Promise<string> {
  const res = await t.call('POST', '/pages', {
    as: owner.creds,
    body: { name: `Circle ${owner.user.nickname}`, privacy: 'private', page_configuration_id: configId, user_id: owner.user.id },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}
const join = async (who: Who, pageId: string) =>
  expect((await t.call('POST', '/follows', { body: { followable_type: 'Page', followable_id: pageId, user_id: who.user.id } })).status).toBe(201);
async function post(who: Who, pageId: string, content: string): Promise<string> {
  const res = await t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, page_id: pageId, content } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}
async function report(who: Who, target_type: string, target_id: string, reason = 'spam'): Promise<string> {
  t.clock.advance(1000);
  const res = await t.call('POST', '/reports', { as: who.creds, body: { user_id: who.user.id, target_type, target_id, reason } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** A page, its creator, a spammer and two members in it, and the spammer's status. */
async function scene() {
  const [owner, spammer, r1, r2] = [await t.member(), await t.member(), await t.member(), await t.member()];
  const pageId = await page(owner);
  for (const who of [spammer, r1, r2]) await join(who, pageId);
  const status = await post(spammer, pageId, 'cheap   watches\nat example.com');
  return { owner, spammer, r1, r2, pageId, status };
}

describe('open reports in the moderation queue', () => {
  it('shows one item per reported target, its first report with how many are open, in time order beside access requests', async () => {
    const { owner, spammer, r1, r2, pageId, status } = await scene();
    const asker = await t.member();
    const first = await report(r1, 'Status', status);
    const request = await ask(asker, pageId);
    await report(r2, 'Status', status, 'abuse');

    const mine = await queue(owner.creds);
    expect(mine.items.map((i) => [i.kind, i.id])).toEqual([['report', first], ['page_access_request', request]]);
    expect(mine.total_items).toBe(2);
    expect(mine.items[0]).toEqual({
      kind: 'report',
      id: first,
      target: { type: 'Status', id: status, excerpt: 'cheap watches at example.com', user: expect.objectContaining({ id: spammer.user.id }) },
      page: expect.objectContaining({ id: pageId }),
      user: expect.objectContaining({ id: r1.user.id }),
      reason: 'spam',
      reports: 2,
      created_at: expect.any(String),
    });
    // The reporters administer nothing: their queue is empty, though they see their own reports in GET /reports.
    expect(await queue(r1.creds)).toMatchObject({ items: [], total_items: 0 });
    const all = await queue();
    expect(all.items.filter((i) => i.kind === 'report' && i.target!.id === status).map((i) => [i.id, i.reports])).toEqual([[first, 2]]);
    await t.call('PUT', `/page_access_requests/${request}/refuse`, { as: owner.creds });
  });

  it('shows reports on comments to the page creator, and reports on users to Admins only', async () => {
    const { owner, spammer, r1, r2, status } = await scene();
    const comment = await t.call('POST', '/comments', { as: spammer.creds, body: { user_id: spammer.user.id, status_id: status, content: 'buy now' } });
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);
    const onComment = await report(r1, 'Comment', comment.body.id, 'off_topic');
    const onUser = await report(r2, 'User', spammer.user.id, 'abuse');

    expect((await queue(owner.creds)).items.map((i) => [i.id, i.target!.type, i.target!.excerpt, i.reason])).toEqual([
      [onComment, 'Comment', 'buy now', 'off_topic'],
    ]);
    const userItem = (await queue()).items.find((i) => i.id === onUser);
    expect(userItem).toMatchObject({ kind: 'report', page: null, reports: 1, target: { type: 'User', id: spammer.user.id, excerpt: null, user: { id: spammer.user.id } } });
    expect((await t.call('PUT', `/reports/${onUser}/dismiss`)).status).toBe(200);
    expect((await t.call('PUT', `/reports/${onComment}/dismiss`, { as: owner.creds })).status).toBe(200);
  });

  it('drops a target from the queue when its reports are settled, by any of them; a new report brings it back as a new item', async () => {
    const { owner, r1, r2, status } = await scene();
    await report(r1, 'Status', status);
    const second = await report(r2, 'Status', status);
    expect((await queue(owner.creds)).total_items).toBe(1);
    expect((await t.call('PUT', `/reports/${second}/dismiss`, { as: owner.creds })).status).toBe(200);
    expect(await queue(owner.creds)).toMatchObject({ items: [], total_items: 0 });

    const again = await report(r1, 'Status', status, 'abuse');
    expect((await queue(owner.creds)).items.map((i) => [i.id, i.reports, i.reason])).toEqual([[again, 1, 'abuse']]);
    const resolved = await t.call('PUT', `/reports/${again}/resolve`, { as: owner.creds, body: { action: 'remove' } });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect((await queue(owner.creds)).total_items).toBe(0);
    expect((await t.call('GET', `/statuses/${status}`, { as: r1.creds })).status).toBe(404);
  });

  it("drops a status its author removes, and its comments, from the queue and from GET /reports?state=open", async () => {
    const { owner, spammer, r1, r2, pageId, status } = await scene();
    const comment = await t.call('POST', '/comments', { as: spammer.creds, body: { user_id: spammer.user.id, status_id: status, content: 'buy now' } });
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);
    await report(r1, 'Status', status);
    await report(r2, 'Comment', comment.body.id);
    const other = await post(spammer, pageId, 'more watches');
    const onOther = await report(r1, 'Status', other);
    expect((await queue(owner.creds)).total_items).toBe(3);

    expect((await t.call('DELETE', `/statuses/${status}`, { as: spammer.creds })).status).toBe(204);
    expect((await queue(owner.creds)).items.map((i) => i.id)).toEqual([onOther]);
    expect((await queue()).items.filter((i) => i.target!.id === status || i.target!.id === comment.body.id)).toEqual([]);
    const open = (await t.call('GET', `/reports?state=open&user_id=${r2.user.id}`)).body;
    expect(open.total_items).toBe(0);
    expect((await t.call('PUT', `/reports/${onOther}/dismiss`, { as: owner.creds })).status).toBe(200);
  });

  it('pages through reports and requests together by cursor and by page number, each item once', async () => {
    const { owner, spammer, r1, pageId } = await scene();
    const made: string[] = [];
    for (let n = 0; n < 3; n++) {
      made.push(await report(r1, 'Status', await post(spammer, pageId, `spam ${n}`)));
      made.push(await ask(await t.member(), pageId));
    }
    const first = await queue(owner.creds, '?per_page=2');
    expect(first.total_items).toBe(6);
    const seen = first.items.map((i) => i.id);
    let link = first.link;
    while (link) {
      const next = await queue(owner.creds, /^<\/public-api\/v1\/moderation_queue(.+)>/.exec(link)![1]!);
      seen.push(...next.items.map((i) => i.id));
      link = next.link;
    }
    expect(seen).toEqual(made);
    expect((await queue(owner.creds, '?per_page=2&page=2')).items.map((i) => i.id)).toEqual(made.slice(2, 4));
    expect((await queue(owner.creds, '?per_page=4&page=2')).items.map((i) => i.id)).toEqual(made.slice(4));
  });

  it("tells the page's creator and the Admins of a new report (so a queue on their screen shows it at once), naming the place, not the content", async () => {
    const { owner, spammer, r1, status } = await scene();
    const id = await report(r1, 'Status', status);
    await t.app.fanOut.drain();
    const reportsTo = async (who: { id: string; creds?: Credentials }) =>
      ((await t.call('GET', `/users/${who.id}/notifications`, { as: who.creds })).body as Record<string, unknown>[]).filter(
        (n) => n.notification_type === 'report' && n.link_id === id,
      );
    const [told] = await reportsTo({ id: owner.user.id, creds: owner.creds });
    expect(told).toMatchObject({ action_name: 'reported', subject_id: r1.user.id, target_type: 'Status', target_id: status, target_name: null, final_target_type: 'Page', link_type: 'Report' });
    expect(JSON.stringify(told)).not.toContain('watches');
    expect(await reportsTo({ id: t.admin.id })).toHaveLength(1);
    expect(await reportsTo({ id: r1.user.id, creds: r1.creds })).toEqual([]);
    expect(await reportsTo({ id: spammer.user.id, creds: spammer.creds })).toEqual([]);
  });
});
