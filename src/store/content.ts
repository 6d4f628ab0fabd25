import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { CommentTable, Database, LikeTable, StatusTable } from './schema.js';
import { reachesFollowers as followersSee } from './visibility.js';
import { counterKey, countersOf, countOf, listPage, readRows, type Listed, type Selection, type Walk } from './paging.js';
import { contentVisible } from './suspensions.js';

export type StatusRow = Selectable<StatusTable>;
export type CommentRow = Selectable<CommentTable>;
export type LikeRow = Selectable<LikeTable>;

const selectStatuses: Selection = (q) => q.selectAll('s');
const selectComments: Selection = (q) => q.selectAll('comments');

export function statusesRepo(db: Kysely<Database>) {
  /**
   * The statuses in a user's stream: those posted in the pages they are in, in the events they answered yes
   * to or created, and by the users they follow where the reader may see them (not in a page or an event, or
   * in a public page; a private page's or an event's reach its members through the first two parts). Each
   * source is one index walk, newest first, merged; the total adds the kept counts of each source, less the
   * statuses counted twice (a followed user's in a followed public page).
   */
  const sources = async (userId: string) => {
    const [follows, attended, created] = await Promise.all([
      db.selectFrom('follows').select(['followable_type', 'followable_id']).where('user_id', '=', userId).execute(),
      db
        .selectFrom('event_attendances')
        .select('event_id')
        .where('user_id', '=', userId)
        .where('answer', '=', 'yes')
        .execute(),
      db.selectFrom('events').select('id').where('user_id', '=', userId).execute(),
    ]);
    return {
      pages: follows.filter((f) => f.followable_type === 'Page').map((f) => f.followable_id),
      users: follows.filter((f) => f.followable_type === 'User').map((f) => f.followable_id),
      events: [...new Set([...attended.map((a) => a.event_id), ...created.map((e) => e.id)])],
    };
  };
  const reachesFollowers = (q: ReturnType<typeof fromStatuses>) => q.where((eb) => followersSee(eb));
  const fromStatuses = () => db.selectFrom('statuses as s');
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
    /** `hidden`: authors whose statuses the reader may not see (suspended), left out of the page and the total. */
    async stream(userId: string, page: Pagination, hidden: readonly string[] = []): Promise<Listed<StatusRow>> {
      const { pages, users, events } = await sources(userId);
      const keys = ['s.id'];
      const shown = () => fromStatuses().where(contentVisible('s.user_id', hidden));
      const walks: Walk[] = [
        ...pages.map((id) => ({ query: shown().where('s.page_id', '=', id), keys })),
        ...events.map((id) => ({ query: shown().where('s.event_id', '=', id), keys })),
        ...users.filter((id) => !hidden.includes(id)).map((id) => ({ query: reachesFollowers(shown().where('s.user_id', '=', id)), keys })),
      ];
      if (walks.length === 0) return { rows: [], total: 0 };
      const counted = [
        ...pages.map((id) => counterKey('statuses', [id, undefined, undefined, undefined])),
        ...events.map((id) => counterKey('statuses', [undefined, id, undefined, undefined])),
        ...users.map((id) => counterKey('statuses', [undefined, undefined, id, '1'])),
      ];
      const twice =
        pages.length && users.length
          ? countOf(db, reachesFollowers(fromStatuses().where('s.user_id', 'in', users).where('s.page_id', 'in', pages)))
          : 0;
      // A followed user's status on a followed page is in two walks and two kept counts, and answered once: it
      // is taken off the sum once.
      // The hidden authors' statuses in these sources, each once, taken off the kept counts.
      const unseen = hidden.length
        ? countOf(
            db,
            fromStatuses()
              .where('s.user_id', 'in', hidden)
              .where((eb) =>
                eb.or([
                  ...(pages.length ? [eb('s.page_id', 'in', pages)] : []),
                  ...(events.length ? [eb('s.event_id', 'in', events)] : []),
                  ...(users.length ? [eb.and([eb('s.user_id', 'in', users), followersSee(eb)])] : []),
                ]),
              ),
          )
        : 0;
      const total = Promise.all([countersOf(db, counted), twice, unseen]).then(
        ([counts, overlap, hiddenCount]) => counts.reduce((a, b) => a + b, 0) - overlap - hiddenCount,
      );
      return listPage<StatusRow>(db, walks, selectStatuses, page, total, true);
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
    /** How many comments each status has by the given authors (those hidden from a viewer); statuses without any are absent. */
    async countByAuthors(statusIds: readonly string[], authors: readonly string[]): Promise<Map<string, number>> {
      if (statusIds.length === 0 || authors.length === 0) return new Map();
      const rows = await readRows<{ status_id: string; n: number | string }>(
        db,
        db
          .selectFrom('comments')
          .select(['comments.status_id', (eb) => eb.fn.countAll().as('n')])
          .where('comments.status_id', 'in', [...statusIds])
          .where('comments.user_id', 'in', [...authors])
          .groupBy('comments.status_id'),
      );
      return new Map(rows.map((r) => [r.status_id, Number(r.n)]));
    },
    async listForStatus(statusId: string, page: Pagination, hidden: readonly string[] = []): Promise<Listed<CommentRow>> {
      const kept = db
        .selectFrom('statuses')
        .select('comments_count')
        .where('id', '=', statusId)
        .executeTakeFirst()
        .then((status) => status?.comments_count ?? 0);
      const unseen = hidden.length
        ? countOf(db, db.selectFrom('comments').where('comments.status_id', '=', statusId).where('comments.user_id', 'in', hidden))
        : 0;
      const total = Promise.all([kept, unseen]).then(([n, hiddenCount]) => n - hiddenCount);
      return listPage<CommentRow>(
        db,
        [{ query: db.selectFrom('comments').where('comments.status_id', '=', statusId).where(contentVisible('comments.user_id', hidden)), keys: ['comments.id'] }],
        selectComments,
        page,
        total,
      );
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
