import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Store } from '../../src/store/store.js';
import type { Credentials } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-target.js';

/**
 * Lock order of moderation against a fan-out batch (src/domain/README.md, "Moderation takes turns"): a batch holds its
 * job's row, then takes its counters in id order. A moderation act must never hold a counter and then wait for
 * another counter or for a job's row. Each batch is played here by hand, in the order one really takes its locks.
 */
const statements: string[] = [];
const t = useApp({ storeOptions: { onQuery: (s) => void statements.push(s) }, webhooks: { concurrency: 0 }, fanOut: { autoStart: false } });
type Who = { user: { id: string }; creds: Credentials };

async function created(res: Promise<{ status: number; body: { id: string } }>): Promise<string> {
  const { status, body } = await res;
  expect(status, JSON.stringify(body)).toBe(201);
  return body.id;
}
const report = (who: Who, target_type: 'Status' | 'Comment', target_id: string) =>
  t.call('POST', '/reports', { as: who.creds, body: { user_id: who.user.id, target_type, target_id, reason: 'spam' } });

/** Until a backend of this database waits for a lock (the act under test, blocked on the batch). */
async function someoneWaits(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(t.store.db);
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('nothing waited for a lock');
}

/**
 * A fan-out batch played by hand in its own transaction: `first` locks taken, then the act sent and waiting for a
 * lock, then `second`. Answers the act's status, once no transaction was run again after a deadlock.
 */
async function againstBatch(first: (tx: Store) => Promise<unknown>, act: () => Promise<{ status: number }>, second: (tx: Store) => Promise<unknown>) {
  statements.length = 0;
  let acting: Promise<{ status: number }> | undefined;
  await t.store.transaction(async (tx) => {
    await first(tx);
    if (!acting) {
      acting = act();
      await someoneWaits();
    }
    await second(tx);
  });
  const { status } = await acting!;
  expect(statements.filter((s) => s === 'rollback').length, 'transactions run again after a deadlock').toBe(0);
  return status;
}

describe.skipIf(!onPostgres)('moderation against a fan-out batch: no deadlock', () => {
  it("resolving a report with `remove` while the status's own fan-out batch runs", async () => {
    const [poster, reporter] = [await t.member(), await t.member()];
    const config = (await t.call('POST', '/page_configurations', { body: { name: 'Jobs' } })).body.id;
    const page = await created(t.call('POST', '/pages', { as: poster.creds, body: { name: 'Job Club', page_configuration_id: config, privacy: 'public', user_id: poster.user.id } }));
    expect((await t.call('POST', '/follows', { as: reporter.creds, body: { user_id: reporter.user.id, followable_type: 'Page', followable_id: page } })).status).toBe(201);
    const status = await created(t.call('POST', '/statuses', { as: poster.creds, body: { user_id: poster.user.id, page_id: page, content: 'news' } }));
    const reported = await created(report(reporter, 'Status', status));
    const [job] = await t.store.db.selectFrom('notification_jobs').select('id').execute();
    expect(job).toBeDefined();
    // The batch: its job's row, then (the act under way) the counters of those it tells.
    const resolved = await againstBatch(
      (tx) => tx.notificationJobs.getForUpdate(job!.id),
      () => t.call('PUT', `/reports/${reported}/resolve`, { body: { action: 'remove' } }),
      (tx) => tx.notifications.holdCounters([reporter.user.id]),
    );
    expect(resolved).toBe(200);
  });

  it('removing a status whose comment only is reported, while a batch tells its author and the reporter', async () => {
    // Ids grow with time: the status's author comes before the reporter in id order, as a batch takes them.
    const [author, reporter, commenter] = [await t.member(), await t.member(), await t.member()];
    const status = await created(t.call('POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content: 'a status' } }));
    const comment = await created(t.call('POST', '/comments', { as: commenter.creds, body: { user_id: commenter.user.id, status_id: status, content: 'a reply' } }));
    await created(report(reporter, 'Comment', comment));
    // The batch's one statement: the author's counter taken, the reporter's next.
    const removed = await againstBatch(
      (tx) => tx.notifications.holdCounters([author.user.id]),
      () => t.call('DELETE', `/statuses/${status}`),
      (tx) => tx.notifications.holdCounters([reporter.user.id]),
    );
    expect(removed).toBe(204);
  });
  it("resolving a status's report with `remove` while its comment is reported too, and a batch tells both reporters", async () => {
    // Ids grow with time: the comment's reporter comes before the status's, as a batch takes them.
    const [author, onComment, onStatus] = [await t.member(), await t.member(), await t.member()];
    const status = await created(t.call('POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content: 'a status' } }));
    const comment = await created(t.call('POST', '/comments', { as: author.creds, body: { user_id: author.user.id, status_id: status, content: 'a reply' } }));
    await created(report(onComment, 'Comment', comment));
    const reported = await created(report(onStatus, 'Status', status));
    const resolved = await againstBatch(
      (tx) => tx.notifications.holdCounters([onComment.user.id]),
      () => t.call('PUT', `/reports/${reported}/resolve`, { body: { action: 'remove' } }),
      (tx) => tx.notifications.holdCounters([onStatus.user.id]),
    );
    expect(resolved).toBe(200);
    // Both reporters told, once each.
    for (const who of [onComment, onStatus]) {
      const told = await t.call('GET', `/users/${who.user.id}/notifications`, { as: who.creds });
      expect(told.body.filter((n: { notification_type: string }) => n.notification_type === 'report_resolved')).toHaveLength(1);
    }
  });
});
