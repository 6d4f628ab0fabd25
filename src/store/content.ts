import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { CommentTable, Database, LikeTable, StatusTable } from './schema.js';
import { countOf, offsetOf } from './paging.js';

export type StatusRow = Selectable<StatusTable>;
export type CommentRow = Selectable<CommentTable>;
export type LikeRow = Selectable<LikeTable>;

export function statusesRepo(db: Kysely<Database>) {
  /**
   * The statuses in a user's stream: those posted in the pages they are in, in the events they answered yes
   * to or created, and by the users they follow where the reader may see them (not in a page or an event, or
   * in a public page; a private page's or an event's reach its members through the first two parts).
   */
  const stream = (userId: string) =>
    db.selectFrom('statuses as s').where((eb) =>
      eb.or([
        eb(
          's.page_id',
          'in',
          eb
            .selectFrom('follows')
            .select('follows.followable_id')
            .where('follows.user_id', '=', userId)
            .where('follows.followable_type', '=', 'Page'),
        ),
        eb(
          's.event_id',
          'in',
          eb
            .selectFrom('event_attendances')
            .select('event_attendances.event_id')
            .where('event_attendances.user_id', '=', userId)
            .where('event_attendances.answer', '=', 'yes'),
        ),
        eb('s.event_id', 'in', eb.selectFrom('events').select('events.id').where('events.user_id', '=', userId)),
        eb.and([
          eb(
            's.user_id',
            'in',
            eb
              .selectFrom('follows')
              .select('follows.followable_id')
              .where('follows.user_id', '=', userId)
              .where('follows.followable_type', '=', 'User'),
          ),
          eb('s.event_id', 'is', null),
          eb.or([
            eb('s.page_id', 'is', null),
            eb.exists(
              eb
                .selectFrom('pages')
                .select('pages.id')
                .whereRef('pages.id', '=', 's.page_id')
                .where('pages.privacy', '=', 'public'),
            ),
          ]),
        ]),
      ]),
    );
  return {
    async insert(row: StatusRow): Promise<void> {
      await db.insertInto('statuses').values(row).execute();
    },
    getById(id: string): Promise<StatusRow | undefined> {
      return db.selectFrom('statuses').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async addToCounts(id: string, changes: { comments?: number; likes?: number }): Promise<void> {
      await db
        .updateTable('statuses')
        .set({
          comments_count: sql`comments_count + ${changes.comments ?? 0}`,
          likes_count: sql`likes_count + ${changes.likes ?? 0}`,
        })
        .where('id', '=', id)
        .execute();
    },
    async stream(userId: string, page: Pagination): Promise<{ rows: StatusRow[]; total: number }> {
      const [rows, total] = await Promise.all([
        stream(userId).selectAll('s').orderBy('s.id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute(),
        countOf(stream(userId)),
      ]);
      return { rows, total };
    },
  };
}
export type StatusesRepo = ReturnType<typeof statusesRepo>;

export function commentsRepo(db: Kysely<Database>) {
  return {
    async insert(row: CommentRow): Promise<void> {
      await db.insertInto('comments').values(row).execute();
    },
    getById(id: string): Promise<CommentRow | undefined> {
      return db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async addToLikes(id: string, delta: number): Promise<void> {
      await db
        .updateTable('comments')
        .set({ likes_count: sql`likes_count + ${delta}` })
        .where('id', '=', id)
        .execute();
    },
    async listForStatus(statusId: string, page: Pagination): Promise<{ rows: CommentRow[]; total: number }> {
      const [rows, total] = await Promise.all([
        db
          .selectFrom('comments')
          .selectAll()
          .where('status_id', '=', statusId)
          .orderBy('id')
          .limit(page.per_page)
          .offset(offsetOf(page))
          .execute(),
        db.selectFrom('statuses').select('comments_count').where('id', '=', statusId).executeTakeFirst(),
      ]);
      return { rows, total: total?.comments_count ?? 0 };
    },
  };
}
export type CommentsRepo = ReturnType<typeof commentsRepo>;

export function likesRepo(db: Kysely<Database>) {
  return {
    async insert(row: LikeRow): Promise<void> {
      await db.insertInto('likes').values(row).execute();
    },
  };
}
export type LikesRepo = ReturnType<typeof likesRepo>;
