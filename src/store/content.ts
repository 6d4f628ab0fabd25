import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Database } from './schema.js';
import { counted, counterKey, kept, keptEach, keptEachPair, listPage, type Embeds, type Listed, type Selection, type Walk } from './paging.js';
import { byId, holder, inserter } from './rows.js';
import { followsPage } from './follows.js';
import { withUser, type WithUser } from './users.js';
import { authorShown, closedPagesIn, conversationsIn, eventPageIn, ofSuspendedAuthors, reachesFollowers, statusKnownTo, statusOpenTo, statusPlaceReadableBy, statusReadableBy, type Viewer } from './visibility.js';

export type StatusRow = Selectable<Database['statuses']>;
export type CommentRow = Selectable<Database['comments']>;
export type LikeRow = Selectable<Database['likes']>;

const selectStatuses: Selection = (q) => q.selectAll('s');

/** A status as its lists read it: with its author and, for a reader not an Admin, `hidden_comments`. */
export type StatusListed = WithUser<StatusRow> & { hidden_comments?: number | string };
export type StatusFilter = Partial<Record<'user_id' | 'page_id' | 'event_id', string>>;

/**
 * How many of a status's comments the viewer may not see (by authors suspended at `now`), counted through the
 * suspended, not by testing every comment of a popular status. The one count, for lists, single reads and totals.
 */
const hiddenComments = (viewer: Viewer, now: string, status: Expression<string>) =>
  ofSuspendedAuthors(viewer, now, (author) =>
    expressionBuilder<Database, never>().selectFrom('comments').where('comments.status_id', '=', status).where('comments.user_id', '=', author),
  );

/** What a list of statuses embeds for the viewer at `now`: each status's author, and its hidden comments' count. */
const statusExtras = (viewer: Viewer, now: string): Embeds => (query, rows) =>
  viewer.isAdmin
    ? withUser(query, rows)
    : withUser(query, rows).select((eb) =>
        eb.case().when(sql.ref(`${rows}.comments_count`), '>', 0).then(hiddenComments(viewer, now, sql.ref(`${rows}.id`))).else(0).end().as('hidden_comments'),
      );

/** The status (`statuses as s`) is in no page `userId` follows. */
const inNoPageFollowedBy = (eb: ExpressionBuilder<Database & { s: Database['statuses'] }, 's'>, userId: string) =>
  eb.or([eb('s.page_id', 'is', null), eb.not(followsPage(userId, sql.ref('s.page_id')))]);

/** Moves a status's or a comment's count of comments or likes by `delta`, in the writing transaction. */
export async function addToCount(db: Kysely<Database>, table: 'statuses' | 'comments', column: 'comments_count' | 'likes_count', id: string, delta: number) {
  await db
    .updateTable(table as 'statuses')
    .set({ [column]: sql`${sql.ref(column)} + ${delta}` })
    .where('id', '=', id)
    .execute();
}

export function statusesRepo(db: Kysely<Database>) {
  /** A user's stream's sources, in one statement: pages followed, events answered yes or created, users followed. */
  const sources = async (userId: string, viewer: Viewer) => {
    const event = sql.lit('Event').as('kind');
    const rows = await db
        .selectFrom('follows')
        .select(['followable_type as kind', 'followable_id as id'])
        .where('user_id', '=', userId)
        .unionAll(
          db
            .selectFrom('event_attendances')
            .select([event, 'event_id as id'])
            .where('user_id', '=', userId)
            .where('answer', '=', 'yes')
            .where((eb) => eventPageIn(eb, viewer, 'event_attendances.event_id', 'closed')),
        )
        .unionAll(db.selectFrom('events').select([event, 'id']).where('user_id', '=', userId).where((eb) => eventPageIn(eb, viewer, 'events.id', 'closed')))
        .execute();
    const of = (kind: string) => [...new Set(rows.filter((row) => row.kind === kind).map((row) => row.id))];
    return { pages: of('Page'), users: of('User'), events: of('Event') };
  };
  const fromStatuses = () => db.selectFrom('statuses as s');
  const statusesOf = (condition: (eb: ExpressionBuilder<Database & { s: StatusRow }, 's'>) => Expression<SqlBool>, filter: StatusFilter) =>
    fromStatuses().where(condition).where((eb) => eb.and(filter));
  return {
    insert: inserter(db, 'statuses'),
    getById: byId(db, 'statuses'),
    hold: holder(db, 'statuses'),
    /** Statuses newest first, filtered, those the viewer may read only (`GET /statuses`). */
    async list(viewer: Viewer, now: string, filter: StatusFilter, page: Pagination): Promise<Listed<StatusListed>> {
      const query = statusesOf((eb) => statusReadableBy(eb, viewer, now), filter);
      // The total from kept counts (visibility.ts's rule for totals); a status is in a page or an event's conversation, never both.
      // The flag ('1': in no event, and in no page or a public one) counts the statuses open to everyone; the stream
      // counts with it a user's statuses that reach their followers (`reachesFollowers`): one flag, the same statuses.
      const key = (page: string | undefined, event: string | undefined, flag?: '1') => counterKey('statuses', [page, event, filter.user_id, flag]);
      let total = kept([key(filter.page_id, filter.event_id)]);
      if (!viewer.isAdmin) {
        const open = kept([key(filter.page_id, filter.event_id, '1')]);
        const pages = filter.event_id === undefined ? keptEach((page) => key(page, undefined), closedPagesIn(viewer.id, filter.page_id)) : kept([]);
        const events = filter.page_id === undefined ? keptEach((event) => key(undefined, event), conversationsIn(viewer, filter.event_id)) : kept([]);
        const hidden = ofSuspendedAuthors(viewer, now, (author) => statusesOf((eb) => statusPlaceReadableBy(eb, viewer), filter).where('s.user_id', '=', author));
        total = sql<number>`(${open} + ${pages} + ${events} - ${hidden})`;
      }
      return listPage<StatusListed>(db, [{ query, keys: ['s.id'] }], selectStatuses, page, total, { desc: true, embeds: statusExtras(viewer, now) });
    },
    /** The status if the viewer may know of it, and whether they may read it: one statement (`visibility.ts`). */
    getKnown(id: string, viewer: Viewer, now: string): Promise<(StatusRow & { readable: number }) | undefined> {
      return fromStatuses()
        .selectAll('s')
        .select((eb) => eb.case().when(statusOpenTo(eb, viewer)).then(1).else(0).end().as('readable'))
        .where('s.id', '=', id)
        .where((eb) => statusKnownTo(eb, viewer, now))
        .executeTakeFirst();
    },
    addToCount: (id: string, column: 'comments_count' | 'likes_count', delta: number) => addToCount(db, 'statuses', column, id, delta),
    /** The statuses of `userId`'s sources that `viewer` may read (`visibility.ts`), and their total. */
    async stream(userId: string, viewer: Viewer, now: string, page: Pagination): Promise<Listed<StatusListed>> {
      const { pages, users, events } = await sources(userId, viewer);
      const keys = ['s.id'];
      // The viewer may read every status of their own sources: of the rule, only the author's suspension can hide one.
      // Kept this small so that each of a stream's walks (hundreds for some users) stays cheap to plan.
      const shown = () => fromStatuses().where((eb) => authorShown(eb, viewer, now, 's.user_id'));
      const walks: Walk[] = [
        ...pages.map((id) => ({ query: shown().where('s.page_id', '=', id), keys })),
        ...events.map((id) => ({ query: shown().where('s.event_id', '=', id), keys })),
        // A followed user's status in a followed page is the page walk's alone, so walks share no row (`disjoint`). A
        // lookup of the reader's follow, not a list of the pages: that would be pages × users parameters.
        ...users.map((id) => ({ query: shown().where('s.user_id', '=', id).where((eb) => reachesFollowers(eb)).where((eb) => inNoPageFollowedBy(eb, userId)), keys })),
      ];
      if (walks.length === 0) return { rows: [], total: 0 };
      const sourceKeys = [
        ...pages.map((id) => counterKey('statuses', [id, undefined, undefined, undefined])),
        ...events.map((id) => counterKey('statuses', [undefined, id, undefined, undefined])),
        ...users.map((id) => counterKey('statuses', [undefined, undefined, id, '1'])),
      ];
      // A followed user's status in a followed page is in two kept counts: taken off once, by page and author.
      const ids = (table: 'pages' | 'users', of: string[]) => sql<string>`(select id from ${sql.table(table)} where id in (${sql.join(of)}))`;
      const twice =
        pages.length && users.length
          ? keptEachPair((page, user) => counterKey('statuses', [page, undefined, user, '1']), ids('pages', pages), ids('users', users))
          : kept([]);
      // Of the rule, only suspended authors remove rows from the sources (`shown`).
      const unseen = ofSuspendedAuthors(viewer, now, (author) =>
        fromStatuses()
          .where('s.user_id', '=', author)
          .where((eb) =>
            eb.or([
              ...(pages.length ? [eb('s.page_id', 'in', pages)] : []),
              ...(events.length ? [eb('s.event_id', 'in', events)] : []),
              ...(users.length ? [eb.and([eb('s.user_id', 'in', users), reachesFollowers(eb)])] : []),
            ]),
          ),
      );
      const total = sql<number>`(${kept(sourceKeys)} - ${twice} - ${unseen})`;
      return listPage<StatusListed>(db, walks, selectStatuses, page, total, { desc: true, embeds: statusExtras(viewer, now), disjoint: true });
    },
  };
}

export function commentsRepo(db: Kysely<Database>) {
  return {
    insert: inserter(db, 'comments'),
    getById: byId(db, 'comments'),
    hold: holder(db, 'comments'),
    /** A comment follows its status (`getKnown`), and is hidden too when its own author is suspended. */
    getKnown(id: string, viewer: Viewer, now: string): Promise<(CommentRow & { readable: number }) | undefined> {
      return db
        .selectFrom('comments as c')
        .innerJoin('statuses as s', 's.id', 'c.status_id')
        .selectAll('c')
        .select((eb) => eb.case().when(statusOpenTo(eb, viewer)).then(1).else(0).end().as('readable'))
        .where('c.id', '=', id)
        .where((eb) => eb.and([authorShown(eb, viewer, now, 'c.user_id'), statusKnownTo(eb, viewer, now)]))
        .executeTakeFirst();
    },
    addToLikes: (id: string, delta: number) => addToCount(db, 'comments', 'likes_count', id, delta),
    /** How many comments of each status the viewer may not see (`hiddenComments`); statuses without any are absent. */
    async countHidden(statusIds: readonly string[], viewer: Viewer, now: string): Promise<Map<string, number>> {
      if (statusIds.length === 0 || viewer.isAdmin) return new Map();
      const rows = await db
        .selectFrom('statuses as s')
        .select(['s.id', hiddenComments(viewer, now, sql.ref('s.id')).as('n')])
        .where('s.id', 'in', [...statusIds])
        .execute();
      return new Map(rows.filter((r) => Number(r.n) > 0).map((r) => [r.id, Number(r.n)]));
    },
    async listForStatus(statusId: string, viewer: Viewer, now: string, page: Pagination): Promise<Listed<WithUser<CommentRow>>> {
      const commentsCount = db.selectFrom('statuses').select('statuses.comments_count').where('statuses.id', '=', statusId);
      const hidden = hiddenComments(viewer, now, sql.val(statusId));
      const total = sql<number>`(coalesce(${commentsCount}, 0) - ${hidden})`;
      const walk = { query: db.selectFrom('comments').where('comments.status_id', '=', statusId).where((eb) => authorShown(eb, viewer, now, 'comments.user_id')), keys: ['comments.id'] };
      return listPage<WithUser<CommentRow>>(db, [walk], (q) => q.selectAll('comments'), page, total, { embeds: withUser });
    },
  };
}

export function likesRepo(db: Kysely<Database>) {
  return {
    insert: inserter(db, 'likes'),
    getById: byId(db, 'likes'),
    /** The likes of one status or comment, oldest first; with `userId`, that user's one like, if any. */
    list(target: { type: 'Status' | 'Comment'; id: string }, userId: string | undefined, page: Pagination): Promise<Listed<WithUser<LikeRow>>> {
      let query = db.selectFrom('likes').where('likes.target_type', '=', target.type).where('likes.target_id', '=', target.id);
      if (userId !== undefined) query = query.where('likes.user_id', '=', userId);
      const table = target.type === 'Status' ? 'statuses' : 'comments';
      const total =
        userId !== undefined ? counted(query) : sql<number>`coalesce((select likes_count from ${sql.table(table)} where id = ${target.id}), 0)`;
      return listPage<WithUser<LikeRow>>(db, [{ query, keys: ['likes.id'] }], (q) => q.selectAll('likes'), page, total, { embeds: withUser });
    },
  };
}
