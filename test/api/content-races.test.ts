import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/store-target.js';
import type { Credentials } from '../helpers/server.js';

/**
 * Removals racing what is written about the content (src/domain/README.md, "Content held"). SQLite's one writer runs
 * them one after the other; on PostgreSQL they overlap, and each answer must still be one of the two orders.
 */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials };

const created = async (res: Promise<{ status: number; body: { id: string } }>) => {
  const { status, body } = await res;
  expect(status, JSON.stringify(body)).toBe(201);
  return body;
};
const post = (who: Who) => created(t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'first post here' } }));
const commentOn = (who: Who, statusId: string) =>
  t.call('POST', '/comments', { as: who.creds, body: { user_id: who.user.id, status_id: statusId, content: 'a late comment' } });
const like = (who: Who, target: { status_id: string } | { comment_id: string }) =>
  t.call('POST', '/likes', { as: who.creds, body: { user_id: who.user.id, ...target } });
const removedRows = (id: string) => t.store.db.selectFrom('removed_content').select('id').where('id', '=', id).execute();
const likesOf = (type: 'Status' | 'Comment', id: string) =>
  t.store.db.selectFrom('likes').select('id').where('target_type', '=', type).where('target_id', '=', id).execute();

describe('removing content while it is written to', () => {
  it('removes a status or a comment once when several removals come at once; the others are told it was removed (409)', async () => {
    const author = await t.member();
    for (let round = 0; round < 3; round++) {
      const status = await post(author);
      const comment = await created(commentOn(author, status.id));
      for (const [path, id] of [[`/comments/${comment.id}`, comment.id], [`/statuses/${status.id}`, status.id]] as const) {
        const answers = await Promise.all(Array.from({ length: 4 }, () => t.call('DELETE', path)));
        expect(answers.map((res) => res.status).sort(), JSON.stringify(answers.map((res) => res.body))).toEqual([204, 409, 409, 409]);
        expect(await removedRows(id)).toHaveLength(1);
      }
    }
  });

  it('lets a comment or a like written meanwhile come first and go with the status, or find it gone (404)', async () => {
    const [author, other] = [await t.member(), await t.member()];
    for (let round = 0; round < 6; round++) {
      const status = await post(author);
      const older = await created(commentOn(author, status.id));
      const [removal, comment, liked, likedComment] = await Promise.all([
        t.call('DELETE', `/statuses/${status.id}`),
        commentOn(other, status.id),
        like(other, { status_id: status.id }),
        like(other, { comment_id: older.id }),
      ]);
      expect(removal.status).toBe(204);
      for (const res of [comment, liked, likedComment]) expect([201, 404], JSON.stringify(res.body)).toContain(res.status);
      // A comment written first was removed with its status, kept for Admins; a like, deleted with what it liked.
      if (comment.status === 201) {
        const read = await t.call('GET', `/comments/${comment.body.id}`);
        expect(read.status, JSON.stringify(read.body)).toBe(200);
        expect(read.body.removed_at).toBeTruthy();
      }
      for (const res of [liked, likedComment]) if (res.status === 201) expect((await t.call('GET', `/likes/${res.body.id}`)).status).toBe(404);
      expect(await likesOf('Status', status.id)).toEqual([]);
      expect(await likesOf('Comment', older.id)).toEqual([]);
    }
  });

  it('lets a like written while its comment is removed come first and go with it, or find it gone (404)', async () => {
    const [author, other] = [await t.member(), await t.member()];
    const status = await post(author);
    for (let round = 0; round < 6; round++) {
      const comment = await created(commentOn(author, status.id));
      const [removal, liked] = await Promise.all([t.call('DELETE', `/comments/${comment.id}`), like(other, { comment_id: comment.id })]);
      expect(removal.status).toBe(204);
      expect([201, 404], JSON.stringify(liked.body)).toContain(liked.status);
      expect(await likesOf('Comment', comment.id)).toEqual([]);
    }
    // The status counts its comments right: every one was removed.
    expect((await t.call('GET', `/statuses/${status.id}`)).body.comments_count).toBe(0);
  });

  it('takes a like back while what it likes is removed without a deadlock: one waits for the other (or finds the like gone, 404)', async () => {
    const [author, other] = [await t.member(), await t.member()];
    // A deadlock is broken by PostgreSQL only after deadlock_timeout (and the loser retried): a race that lasts that
    // long was one. Without a deadlock a race takes a few milliseconds.
    const setting = sql<{ ms: string }>`select setting as ms from pg_settings where name = 'deadlock_timeout'`;
    const timeout = onPostgres ? Number((await setting.execute(t.store.db)).rows[0]!.ms) : Infinity;
    const status = await post(author);
    const slow: string[] = [];
    for (let round = 0; round < 6; round++) {
      const kept = await post(author);
      const comment = await created(commentOn(author, status.id));
      const [likedStatus, likedComment] = [await created(like(other, { status_id: kept.id })), await created(like(other, { comment_id: comment.id }))];
      for (const [path, likeId] of [[`/statuses/${kept.id}`, likedStatus.id], [`/comments/${comment.id}`, likedComment.id]] as const) {
        const started = Date.now();
        const [removal, unlike] = await Promise.all([t.call('DELETE', path), t.call('DELETE', `/likes/${likeId}`, { as: other.creds })]);
        if (Date.now() - started >= timeout) slow.push(path);
        expect(removal.status, JSON.stringify(removal.body)).toBe(204);
        expect([204, 404], JSON.stringify(unlike.body)).toContain(unlike.status);
      }
      expect(await likesOf('Status', kept.id)).toEqual([]);
      expect(await likesOf('Comment', comment.id)).toEqual([]);
    }
    // Each race deadlocked without the fix (12 of 12); one slowed by a loaded machine is not taken for one.
    expect(slow.length, `races as long as a deadlock: ${slow.join(', ')}`).toBeLessThan(3);
  });

  it('acts once when a report is resolved by removal while the author removes the content', async () => {
    const [author, reporter] = [await t.member(), await t.member()];
    for (let round = 0; round < 4; round++) {
      const status = await post(author);
      const report = await created(
        t.call('POST', '/reports', { as: reporter.creds, body: { user_id: reporter.user.id, target_type: 'Status', target_id: status.id, reason: 'spam' } }),
      );
      const [resolve, removal] = await Promise.all([
        t.call('PUT', `/reports/${report.id}/resolve`, { body: { action: 'remove' } }),
        t.call('DELETE', `/statuses/${status.id}`, { as: author.creds }),
      ]);
      // One of them removed it and settled the report; the other found it done (the author no longer sees the status).
      expect([resolve.status, removal.status].sort(), JSON.stringify([resolve.body, removal.body])).toEqual(resolve.status === 200 ? [200, 404] : [204, 409]);
      expect(await removedRows(status.id)).toHaveLength(1);
      expect((await t.call('GET', `/reports/${report.id}`)).body).toMatchObject({ state: 'resolved', resolution: 'removed' });
    }
  });
});
