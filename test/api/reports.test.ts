import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/domain/demo.js';
import { startApp, useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/** POST/GET /reports, resolve and dismiss (docs/api.md, "Moderating content and people"): who reports, who sees, who settles, once for all reports on a target. */
const t = useApp();
type Who = { user: { id: string; nickname: string }; creds: Credentials };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Reports' } })).body.id;
});

const page = async (owner: Who, privacy: string) =>
  (await t.call('POST', '/pages', { as: owner.creds, body: { name: `${privacy} circle`, privacy, page_configuration_id: configId, user_id: owner.user.id } }))
    .body as { id: string };
const join = (who: Who, pageId: string) => t.call('POST', '/follows', { body: { followable_type: 'Page', followable_id: pageId, user_id: who.user.id } });
const post = async (who: Who, body: Record<string, unknown> = {}) => {
  const res = await t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'cheap pills here', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};
const report = (who: Who, body: Record<string, unknown>) => t.call('POST', '/reports', { as: who.creds, body: { user_id: who.user.id, reason: 'spam', ...body } });

/** A page with its owner, a spammer's status in it, and two members who report it. */
async function scene() {
  const [owner, spammer, r1, r2, outsider] = [await t.member(), await t.member(), await t.member(), await t.member(), await t.member()];
  const secret = await page(owner, 'secret');
  for (const who of [spammer, r1, r2]) await join(who, secret.id);
  const status = await post(spammer, { page_id: secret.id });
  return { owner, spammer, r1, r2, outsider, secret, status };
}

describe('POST /reports', () => {
  it('reports what the reporter can see, once while open; 404 for what they cannot', async () => {
    const { r1, outsider, status, spammer } = await scene();
    const res = await report(r1, { target_type: 'Status', target_id: status.id, comment: 'obvious spam' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      user_id: r1.user.id,
      target_type: 'Status',
      target_id: status.id,
      reason: 'spam',
      comment: 'obvious spam',
      state: 'open',
      resolution: null,
      resolved_by: null,
      target: { type: 'Status', id: status.id, excerpt: 'cheap pills here', user: null },
    });
    const again = await report(r1, { target_type: 'Status', target_id: status.id });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_reported');
    expect((await report(outsider, { target_type: 'Status', target_id: status.id })).status).toBe(404);
    expect((await report(outsider, { target_type: 'Comment', target_id: 'nope' })).status).toBe(404);
    expect((await report(outsider, { target_type: 'Status', target_id: status.id, reason: 'boring' })).status).toBe(422);
    expect((await report(outsider, { target_type: 'User', target_id: spammer.user.id, comment: 'x'.repeat(1001) })).status).toBe(422);
    const user = await report(outsider, { target_type: 'User', target_id: spammer.user.id, reason: 'abuse' });
    expect(user.status).toBe(201);
    expect(user.body.target).toMatchObject({ type: 'User', id: spammer.user.id, excerpt: null, user: { id: spammer.user.id } });
    expect((await t.call('POST', '/reports', { as: r1.creds, body: { user_id: outsider.user.id, target_type: 'User', target_id: spammer.user.id, reason: 'spam' } })).status).toBe(403);
  });
});

describe('GET /reports', () => {
  it('shows Admins all, the page administrator the reports on its content, anyone else their own', async () => {
    const { owner, r1, r2, outsider, status } = await scene();
    const a = (await report(r1, { target_type: 'Status', target_id: status.id })).body;
    const b = (await report(r2, { target_type: 'Status', target_id: status.id, reason: 'abuse' })).body;
    const list = async (as: Credentials | undefined, q = '') => (await t.call('GET', `/reports?target_id=${status.id}${q}`, { as })).body;
    expect((await list(undefined)).items.map((r: { id: string }) => r.id)).toEqual([a.id, b.id]);
    expect((await list(owner.creds)).total_items).toBe(2);
    expect((await list(r1.creds)).items.map((r: { id: string }) => r.id)).toEqual([a.id]);
    expect((await list(outsider.creds)).total_items).toBe(0);
    expect((await list(undefined, '&user_id=' + r2.user.id)).items.map((r: { id: string }) => r.id)).toEqual([b.id]);
    expect((await t.call('GET', '/reports?state=bogus')).status).toBe(400);
    expect((await t.call('GET', `/reports/${a.id}`, { as: r1.creds })).status).toBe(200);
    expect((await t.call('GET', `/reports/${a.id}`, { as: r2.creds })).status).toBe(404);
    expect((await t.call('GET', `/reports/${a.id}`, { as: owner.creds })).status).toBe(200);
  });
});

describe('settling reports', () => {
  it('resolves with remove: the content goes, every open report on it is resolved, reporters are told, audited', async () => {
    const { owner, r1, r2, status, spammer } = await scene();
    const a = (await report(r1, { target_type: 'Status', target_id: status.id })).body;
    const b = (await report(r2, { target_type: 'Status', target_id: status.id })).body;
    expect((await t.call('PUT', `/reports/${a.id}/resolve`, { as: r1.creds, body: { action: 'remove' } })).status).toBe(403);
    expect((await t.call('PUT', `/reports/${a.id}/resolve`, { as: owner.creds, body: { action: 'suspend', reason: 'x' } })).status).toBe(403);
    const res = await t.call('PUT', `/reports/${a.id}/resolve`, { as: owner.creds, body: { action: 'remove' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'resolved', resolution: 'removed', resolved_by: owner.user.id });
    expect((await t.call('GET', `/reports/${b.id}`)).body).toMatchObject({ state: 'resolved', resolution: 'removed' });
    expect((await t.call('GET', `/statuses/${status.id}`, { as: spammer.creds })).status).toBe(404);
    for (const who of [r1, r2]) {
      const told = ((await t.call('GET', `/users/${who.user.id}/notifications`, { as: who.creds })).body as { notification_type: string }[]).filter(
        (n) => n.notification_type === 'report_resolved',
      );
      expect(told).toHaveLength(1);
    }
    expect((await t.call('GET', `/audit_log?action=report.resolve&target_id=${a.id}`)).body.total_items).toBe(1);
    expect((await t.call('GET', `/audit_log?action=status.remove&target_id=${status.id}`)).body.total_items).toBe(1);
    expect((await t.call('PUT', `/reports/${b.id}/dismiss`, { as: owner.creds })).status).toBe(409);
    // Once settled, the same reporter may report the same target again.
    expect((await report(r1, { target_type: 'User', target_id: spammer.user.id })).status).toBe(201);
  });

  it('suspends the author (Admins, reason required) and dismisses', async () => {
    const { r1, r2, status, spammer } = await scene();
    const a = (await report(r1, { target_type: 'Status', target_id: status.id })).body;
    expect((await t.call('PUT', `/reports/${a.id}/resolve`, { body: { action: 'suspend' } })).status).toBe(422);
    const res = await t.call('PUT', `/reports/${a.id}/resolve`, { body: { action: 'suspend', reason: 'spam ring' } });
    expect(res.body).toMatchObject({ state: 'resolved', resolution: 'suspended' });
    expect((await t.call('GET', `/users/${spammer.user.id}`)).body.suspension).toMatchObject({ reason: 'spam ring' });
    await t.call('DELETE', `/users/${spammer.user.id}/suspension`);
    const b = (await report(r2, { target_type: 'User', target_id: spammer.user.id })).body;
    expect((await t.call('PUT', `/reports/${b.id}/dismiss`, { as: r2.creds })).status).toBe(403);
    const dismissed = await t.call('PUT', `/reports/${b.id}/dismiss`);
    expect(dismissed.body).toMatchObject({ state: 'dismissed', resolution: null });
    expect((await t.call('GET', `/audit_log?action=report.dismiss&target_id=${b.id}`)).body.total_items).toBe(1);
  });

  it('acts once when resolves of the same reports race', async () => {
    const { owner, r1, r2, status, spammer } = await scene();
    const a = (await report(r1, { target_type: 'Status', target_id: status.id })).body;
    const b = (await report(r2, { target_type: 'Status', target_id: status.id })).body;
    const answers = await Promise.all([
      t.call('PUT', `/reports/${a.id}/resolve`, { as: owner.creds, body: { action: 'remove' } }),
      t.call('PUT', `/reports/${b.id}/resolve`, { body: { action: 'remove' } }),
      t.call('PUT', `/reports/${a.id}/dismiss`),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const told = ((await t.call('GET', `/users/${spammer.user.id}/notifications`, { as: spammer.creds })).body as { notification_type: string }[]).filter(
      (n) => n.notification_type === 'content_removed',
    );
    expect(told.length).toBeLessThanOrEqual(1);
    const audit = (await t.call('GET', `/audit_log?target_id=${a.id}`)).body.total_items + (await t.call('GET', `/audit_log?target_id=${b.id}`)).body.total_items;
    expect(audit).toBe(1);
    const r1Told = ((await t.call('GET', `/users/${r1.user.id}/notifications`, { as: r1.creds })).body as { notification_type: string }[]).filter(
      (n) => n.notification_type === 'report_resolved',
    );
    expect(r1Told).toHaveLength(1);
  });

  it('sends report.created and report.updated to webhooks that subscribe', async () => {
    const { owner, r1, status } = await scene();
    const hook = await t.call('POST', '/webhooks', { body: { url: 'https://hooks.example.org/agora', events: ['report.created', 'report.updated'] } });
    expect(hook.status).toBe(201);
    const a = (await report(r1, { target_type: 'Status', target_id: status.id })).body;
    await t.call('PUT', `/reports/${a.id}/resolve`, { as: owner.creds, body: { action: 'none' } });
    const deliveries = (await t.call('GET', `/webhooks/${hook.body.id}/deliveries`)).body.items as { event: string }[];
    expect(deliveries.map((d) => d.event).sort()).toEqual(['report.created', 'report.updated']);
    await t.call('DELETE', `/webhooks/${hook.body.id}`);
  });
});

describe('the demo community', () => {
  it('is seeded with an open report on a spam status', async () => {
    const demo = await startApp();
    try {
      expect(await seedDemo(demo.deps)).toBe(true);
      const open = (await demo.call('GET', '/reports?state=open')).body;
      expect(open.total_items).toBe(1);
      expect(open.items[0]).toMatchObject({ target_type: 'Status', reason: 'spam', target: { excerpt: expect.stringContaining('followers overnight') } });
    } finally {
      await demo.close();
    }
  });
});
