import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { addToCount, selectStatuses, statusExtras, type CommentRow, type LikeRow, type StatusListed, type StatusRow } from './content.js';
import { counterKey, kept, keptEach, listPage, type Listed } from './paging.js';
import type { Database } from './schema.js';
import { closedPagesIn, conversationsIn, ofSuspendedAuthors, statusPlaceReadableBy, statusReadableBy, type Viewer } from './visibility.js';

export type RemovedRow = Selectable<Database['removed_content']>;
export type Removal = Pick<RemovedRow, 'removed_at' | 'removed_by' | 'removal_reason'>;

export interface RemovedFilter {
  target_type?: 'Status' | 'Comment';
  user_id?: string;
  removed_by?: string;
}

export interface StatusFilter {
  user_id?: string;
  page_id?: string;
  event_id?: string;
}

/** Removed content: the row is deleted (so every list and count forgets it) and a copy kept for Admins. */
export function removalsRepo(db: Kysely<Database>) {
  const archive = async (row: RemovedRow) => {
    await db.insertInto('removed_content').values(row).execute();
  };

  /** Pending notification fan-outs about the content stop where they are. */
  const stopFanOuts = async (type: 'Status' | 'Comment', id: string) => {
    await db
      .deleteFrom('notification_jobs')
      .where('content_id', 'in', (eb) =>
        eb.selectFrom('notification_contents').select('id').where('target_type', '=', type).where('target_id', '=', id),
      )
      .execute();
  };

  /** Notifications stop quoting the removed content; the author's `content_removed`, written after, still names it. */
  const unquote = async (type: 'Status' | 'Comment', ids: string[]) => {
    if (ids.length === 0) return;
    await db
      .updateTable('notification_contents')
      .set({ target_name: null, comment_info: '{}' })
      .where('target_type', '=', type)
      .where('target_id', 'in', ids)
      .where('notification_type', 'in', ['status', 'comment', 'like'])
      .execute();
  };

  const statusesOf = (condition: (eb: ExpressionBuilder<Database & { s: StatusRow }, 's'>) => Expression<SqlBool>, filter: StatusFilter) => {
    let query = db.selectFrom('statuses as s').where(condition);
    if (filter.user_id !== undefined) query = query.where('s.user_id', '=', filter.user_id);
    if (filter.page_id !== undefined) query = query.where('s.page_id', '=', filter.page_id);
    if (filter.event_id !== undefined) query = query.where('s.event_id', '=', filter.event_id);
    return query;
  };

  /** How many of the filter's statuses the viewer reads, from kept counts (visibility.ts's rule for totals). */
  const readableTotal = (viewer: Viewer, now: string, filter: StatusFilter): Expression<number> => {
    const key = (page: string | undefined, event: string | undefined, flag?: '1') => counterKey('statuses', [page, event, filter.user_id, flag]);
    if (viewer.isAdmin) return kept([key(filter.page_id, filter.event_id)]);
    // A status is in a page or an event's conversation, never both.
    const inPages = filter.event_id === undefined;
    const inEvents = filter.page_id === undefined;
    const open = kept([key(filter.page_id, filter.event_id, '1')]);
    const pages = inPages ? keptEach((page) => key(page, undefined), closedPagesIn(viewer.id, filter.page_id)) : kept([]);
    const events = inEvents ? keptEach((event) => key(undefined, event), conversationsIn(viewer, filter.event_id)) : kept([]);
    const hidden = ofSuspendedAuthors(viewer, now, (author) => statusesOf((eb) => statusPlaceReadableBy(eb, viewer), filter).where('s.user_id', '=', author));
    return sql<number>`(${open} + ${pages} + ${events} - ${hidden})`;
  };

  return {
    /** Statuses newest first, filtered, those the viewer may read only. */
    async listStatuses(viewer: Viewer, now: string, filter: StatusFilter, page: Pagination): Promise<Listed<StatusListed>> {
      const query = statusesOf((eb) => statusReadableBy(eb, viewer, now), filter);
      return listPage<StatusListed>(db, [{ query, keys: ['s.id'] }], selectStatuses, page, readableTotal(viewer, now, filter), true, statusExtras(viewer, now));
    },

    /** Removed content, newest removal first (Admins'). */
    listRemoved(filter: RemovedFilter, page: Pagination): Promise<Listed<RemovedRow>> {
      let query = db.selectFrom('removed_content');
      if (filter.target_type !== undefined) query = query.where('removed_content.target_type', '=', filter.target_type);
      if (filter.user_id !== undefined) query = query.where('removed_content.user_id', '=', filter.user_id);
      if (filter.removed_by !== undefined) query = query.where('removed_content.removed_by', '=', filter.removed_by);
      const total = kept([counterKey('removed_content', [filter.target_type, filter.user_id, filter.removed_by])]);
      const walk = { query, keys: ['removed_content.removed_at', 'removed_content.id'] };
      return listPage<RemovedRow>(db, [walk], (q) => q.selectAll('removed_content'), page, total, true);
    },

    getRemoved(type: 'Status' | 'Comment', id: string): Promise<RemovedRow | undefined> {
      return db.selectFrom('removed_content').selectAll().where('id', '=', id).where('target_type', '=', type).executeTakeFirst();
    },

    /** Removes a status with its comments (kept as removed too) and their likes; answers the comments' ids. */
    async removeStatus(status: StatusRow, removal: Removal): Promise<string[]> {
      await archive({ ...status, target_type: 'Status', status_id: null, ...removal });
      const comments = await db.selectFrom('comments').selectAll().where('status_id', '=', status.id).execute();
      for (const c of comments)
        await archive({ ...c, target_type: 'Comment', page_id: status.page_id, event_id: status.event_id, comments_count: 0, ...removal });
      await db
        .deleteFrom('likes')
        .where((eb) =>
          eb.or([
            eb.and([eb('target_type', '=', 'Status'), eb('target_id', '=', status.id)]),
            eb.and([eb('target_type', '=', 'Comment'), eb('target_id', 'in', eb.selectFrom('comments').select('id').where('status_id', '=', status.id))]),
          ]),
        )
        .execute();
      await stopFanOuts('Status', status.id);
      await unquote('Status', [status.id]);
      await unquote('Comment', comments.map((c) => c.id));
      await db.deleteFrom('comments').where('status_id', '=', status.id).execute();
      await db.deleteFrom('statuses').where('id', '=', status.id).execute();
      return comments.map((c) => c.id);
    },

    /** Removes a comment and its likes; its status counts one comment fewer. */
    async removeComment(comment: CommentRow, status: StatusRow, removal: Removal): Promise<void> {
      await archive({ ...comment, target_type: 'Comment', page_id: status.page_id, event_id: status.event_id, comments_count: 0, ...removal });
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
