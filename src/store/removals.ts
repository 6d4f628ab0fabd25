import { sql, type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { addToCount, type CommentRow, type LikeRow, type StatusRow } from './content.js';
import { counterKey, kept, listPage, type Listed } from './paging.js';
import type { Database } from './schema.js';

export type RemovedRow = Selectable<Database['removed_content']>;
export type Removal = Pick<RemovedRow, 'removed_at' | 'removed_by' | 'removal_reason'>;

export type RemovedFilter = Partial<Pick<RemovedRow, 'target_type' | 'user_id' | 'removed_by'>>;

/** Removed content: the row is deleted (so every list and count forgets it) and a copy kept for Admins. */
const COMMENT_COLUMNS = ['id', 'status_id', 'user_id', 'content', 'likes_count', 'created_at', 'updated_at'] as const;

export function removalsRepo(db: Kysely<Database>) {
  /**
   * Comments of `status` kept as removed, in its page or event: one statement for all of a status's (on PostgreSQL
   * a key counted many times in one transaction costs more each time: migration 0048).
   */
  const archiveComments = (status: StatusRow, removal: Removal, which: { id: string } | { status_id: string }) => {
    const text = (value: string | null) => sql<unknown>`cast(${value} as text)`;
    const rest: Partial<Record<keyof RemovedRow, RawBuilder<unknown>>> = {
      target_type: sql.lit('Comment'), page_id: text(status.page_id), event_id: text(status.event_id), comments_count: sql.lit(0),
      removed_at: text(removal.removed_at), removed_by: text(removal.removed_by), removal_reason: text(removal.removal_reason),
    };
    const values = [...COMMENT_COLUMNS, ...Object.entries(rest).map(([k, v]) => v.as(k))];
    const select = db.selectFrom('comments').where((eb) => eb.and(which)).select(values);
    const columns = [...COMMENT_COLUMNS, ...(Object.keys(rest) as (keyof RemovedRow)[])];
    return db.insertInto('removed_content').columns(columns).expression(select).execute();
  };

  /** Notifications stop quoting the removed content; the author's `content_removed`, written after, still names it. */
  const unquote = async (type: 'Status' | 'Comment', ids: string[] | SelectQueryBuilder<Database, 'comments', { id: string }>) => {
    if (Array.isArray(ids) && ids.length === 0) return;
    await db
      .updateTable('notification_contents')
      .set({ target_name: null, comment_info: '{}' })
      .where('target_type', '=', type)
      .where('target_id', 'in', ids)
      .where('notification_type', 'in', ['status', 'comment', 'like'])
      .execute();
  };

  return {
    /** Removed content, newest removal first (Admins'). */
    listRemoved(filter: RemovedFilter, page: Pagination): Promise<Listed<RemovedRow>> {
      const query = db.selectFrom('removed_content').where((eb) => eb.and(filter));
      const total = kept([counterKey('removed_content', [filter.target_type, filter.user_id, filter.removed_by])]);
      const walk = { query, keys: ['removed_content.removed_at', 'removed_content.id'] };
      return listPage<RemovedRow>(db, [walk], (q) => q.selectAll('removed_content'), page, total, { desc: true });
    },

    getRemoved(type: 'Status' | 'Comment', id: string): Promise<RemovedRow | undefined> {
      return db.selectFrom('removed_content').selectAll().where('id', '=', id).where('target_type', '=', type).executeTakeFirst();
    },

    /** Removes a status with its comments (kept as removed too) and their likes; answers the comments' ids. */
    async removeStatus(status: StatusRow, removal: Removal): Promise<string[]> {
      await db.insertInto('removed_content').values({ ...status, target_type: 'Status', status_id: null, ...removal }).execute();
      const comments = await db.selectFrom('comments').select('id').where('status_id', '=', status.id).execute();
      await archiveComments(status, removal, { status_id: status.id });
      const ofStatus = db.selectFrom('comments').select('id').where('status_id', '=', status.id);
      await db.deleteFrom('likes').where('target_type', '=', 'Status').where('target_id', '=', status.id).execute();
      await db.deleteFrom('likes').where('target_type', '=', 'Comment').where('target_id', 'in', ofStatus).execute();
      // Pending notification fan-outs about the status stop where they are.
      const about = db.selectFrom('notification_contents').select('id').where('target_type', '=', 'Status').where('target_id', '=', status.id);
      await db.deleteFrom('notification_jobs').where('content_id', 'in', about).execute();
      await unquote('Status', [status.id]);
      await unquote('Comment', ofStatus);
      await db.deleteFrom('comments').where('status_id', '=', status.id).execute();
      await db.deleteFrom('statuses').where('id', '=', status.id).execute();
      return comments.map((c) => c.id);
    },

    /** Removes a comment and its likes; its status counts one comment fewer. */
    async removeComment(comment: CommentRow, status: StatusRow, removal: Removal): Promise<void> {
      await archiveComments(status, removal, { id: comment.id });
      await db.deleteFrom('likes').where('target_type', '=', 'Comment').where('target_id', '=', comment.id).execute();
      await unquote('Comment', [comment.id]);
      await db.deleteFrom('comments').where('id', '=', comment.id).execute();
      await addToCount(db, 'statuses', 'comments_count', status.id, -1);
    },

    /** Deletes a like; its status or comment counts one like fewer. False when it was already gone (a race). */
    async unlike(like: LikeRow): Promise<boolean> {
      const deleted = await db.deleteFrom('likes').where('id', '=', like.id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await addToCount(db, like.target_type === 'Comment' ? 'comments' : 'statuses', 'likes_count', like.target_id, -1);
      return true;
    },
  };
}
