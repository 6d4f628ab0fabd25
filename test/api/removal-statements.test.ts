import { describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { useApp } from '../helpers/app.js';

/**
 * Removing a status keeps its comments as removed in one statement, whatever their number: one statement a comment
 * counted the removed content's keys once a comment in one transaction, which on PostgreSQL cost more each time
 * (a status with 8,000 comments took half a minute to remove; migration 0048 counts them once a statement).
 */
const statements: string[] = [];
const t = useApp({ storeOptions: { onQuery: (text) => statements.push(text) } });

async function removalStatements(comments: number, reported = false): Promise<number> {
  const author = await t.member();
  const status = (await t.call('POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content: 'buy watches' } })).body as { id: string };
  const now = new Date().toISOString();
  const ids = Array.from({ length: comments }, () => newId());
  await t.store.transaction(async (tx) => {
    for (const id of ids) await tx.comments.insert({ id, status_id: status.id, user_id: author.user.id, content: 'watches', likes_count: 0, created_at: now, updated_at: now });
    await tx.statuses.addToCount(status.id, 'comments_count', comments);
  });
  if (reported) {
    // Each comment reported: the settling writes an audit entry for each, in one statement for all (0048 again).
    const reporter = await t.member();
    for (const id of ids) {
      const res = await t.call('POST', '/reports', { as: reporter.creds, body: { user_id: reporter.user.id, target_type: 'Comment', target_id: id, reason: 'spam' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  }
  statements.length = 0;
  expect((await t.call('DELETE', `/statuses/${status.id}`)).status).toBe(204);
  const issued = reported ? statements.filter((text) => /^insert into "audit_log"/.test(text)).length : statements.length;
  const removed = await t.call('GET', `/removed_content?target_type=Comment&user_id=${author.user.id}`);
  expect(removed.body.total_items).toBe(comments);
  return issued;
}

describe('removing a status with many comments', () => {
  it('takes about as many statements for 300 comments as for 3, and keeps each as removed', async () => {
    const few = await removalStatements(3);
    // A few either way (the caller's look-ups, remembered or not), never one a comment.
    expect(await removalStatements(300)).toBeLessThan(few + 10);
  });

  it('writes the audit entries of the reports it settles in as many statements for 60 reported comments as for 3', async () => {
    expect(await removalStatements(60, true)).toBe(await removalStatements(3, true));
  });
});
