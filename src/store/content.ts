import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { MAX_PER_PAGE, type Pagination } from '../shared/schemas/common.js';
import type { Database } from './schema.js';
import { counted, counterKey, cursorOf, kept, keptEach, keptEachPair, listPage, type AnyQuery, type Embeds, type Listed, type Selection } from './paging.js';
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

type Kind = 'Page' | 'User' | 'Event';
/** How deep a page number may reach a stream of many sources: each step of 100 statuses looks up every source. */
export const STREAM_PAGE_WINDOW = 1000;
type StatusEb = ExpressionBuilder<Database & { s: Database['statuses'] }, 's'>;

/** Moves a status's or a comment's count of comments or likes by `delta`, in the writing transaction. */
export async function addToCount(db: Kysely<Database>, table: 'statuses' | 'comments', column: 'comments_count' | 'likes_count', id: string, delta: number) {
  await db
    .updateTable(table as 'statuses')
    .set({ [column]: sql`${sql.ref(column)} + ${delta}` })
    .where('id', '=', id)
    .execute();
}

export function statusesRepo(db: Kysely<Database>) {
  const fromStatuses = () => db.selectFrom('statuses as s');
  /** A stream's sources (kind, ids, column): pages in, users followed, events gone to or created (read once). */
  const sourcesOf = (userId: string, viewer: Viewer): [Kind, AnyQuery, string][] => {
    const followed = (type: Kind) => db.selectFrom('follows').select('followable_id as id').where('user_id', '=', userId).where('followable_type', '=', type);
    const answered = db.selectFrom('event_attendances').select('event_id as id').where('user_id', '=', userId).where('answer', '=', 'yes');
    const created = db.selectFrom('events').select('id').where('user_id', '=', userId);
    return [
      ['Page', followed('Page'), 'follows.followable_id'],
      ['User', followed('User'), 'follows.followable_id'],
      ['Event', answered.where((eb) => eventPageIn(eb, viewer, 'event_attendances.event_id', 'closed')), 'event_attendances.event_id'],
      ['Event', created.where((eb) => eventPageIn(eb, viewer, 'events.id', 'closed')), 'events.id'],
    ];
  };
  /**
   * A page of a stream: one index walk per source, merged, but only of the n + 1 sources whose newest statuses after
   * the cursor are newest (a key lookup per source; with a page number, the skipped rows' too): no other holds one of
   * the page's rows. Walks of every source cost the plan and merge of thousands (docs/performance.md).
   */
  const streamPage = async (userId: string, viewer: Viewer, now: string, page: Pagination, total: Expression<number>, select: Selection, embeds?: Embeds) => {
    // The viewer may read every status of their own sources: of the rule, only the author's suspension can hide one.
    const shown = () => fromStatuses().where((eb) => authorShown(eb, viewer, now, 's.user_id'));
    // What a source gives its stream (`s`): a followed user's statuses reach their followers and are in no page
    // followed (there, the page's alone), so sources share none (`disjoint`) and a source's newest status names it.
    const of: Record<Kind, (eb: StatusEb, id: Expression<string> | string) => Expression<SqlBool>> = {
      Page: (eb, id) => eb('s.page_id', '=', id),
      Event: (eb, id) => eb('s.event_id', '=', id),
      User: (eb, id) =>
        eb.and([eb('s.user_id', '=', id), reachesFollowers(eb), eb.or([eb('s.page_id', 'is', null), eb.not(followsPage(userId, sql.ref('s.page_id')))])]),
    };
    const cursor = cursorOf(page, ['s.id']);
    const after = (query: ReturnType<typeof shown>) => (cursor ? query.where('s.id', '<', cursor[0]!) : query);
    const newest = (kind: Kind, column: string) => after(shown().where((eb) => of[kind](eb, sql.ref(column)))).select('s.id').orderBy('s.id', 'desc').limit(1);
    const arms = sourcesOf(userId, viewer).map(([kind, ids, column]) => ids.select([sql.lit(kind).as('kind'), newest(kind, column).as('newest')]));
    // Ranked here, not by an ORDER BY: SQLite would sort every source in a temporary B-tree to keep n + 1 of them.
    const ranked = ((await arms.reduce((union, arm) => union.unionAll(arm)).execute()) as { kind: Kind; id: string; newest: string | null }[])
      .filter((source): source is typeof source & { newest: string } => source.newest !== null)
      .sort((a, b) => (a.newest < b.newest ? 1 : a.newest > b.newest ? -1 : 0));
    const walks = [...new Map(ranked.map((source) => [source.newest, source])).values()]
      .slice(0, (page.cursor ? 0 : (page.page - 1) * page.per_page) + page.per_page + 1)
      .map(({ kind, id }) => ({ query: shown().where((eb) => of[kind](eb, id)), keys: ['s.id'] }));
    // More walks than a cursor's page takes (the sources of the rows a page number skips): the caller steps instead.
    if (walks.length > MAX_PER_PAGE + 1) return undefined;
    return listPage<StatusListed>(db, walks, select, page, total, { desc: true, embeds, disjoint: true });
  };
  /** A stream's total: its sources' kept counts, less what two hold (followed page and user), less the suspended's. */
  const streamTotal = (userId: string, viewer: Viewer, now: string) => {
    const ids = (kind: Kind) => sql<string>`${sourcesOf(userId, viewer).filter(([k]) => k === kind).map(([, q]) => q).reduce((union, q) => union.unionAll(q))}`;
    const key = (page?: string, event?: string, user?: string, flag?: '1') => counterKey('statuses', [page, event, user, flag]);
    const twice = keptEachPair((page, user) => key(page, undefined, user, '1'), ids('Page'), ids('User'));
    const unseen = ofSuspendedAuthors(viewer, now, (author) =>
      fromStatuses()
        .where('s.user_id', '=', author)
        .where((eb) => eb.or([eb('s.page_id', 'in', ids('Page')), eb('s.event_id', 'in', ids('Event')), eb.and([eb('s.user_id', 'in', ids('User')), reachesFollowers(eb)])])),
    );
    const keyOf = { Page: (id: string) => key(id), Event: (id: string) => key(undefined, id), User: (id: string) => key(undefined, undefined, id, '1') };
    const each = (['Page', 'Event', 'User'] as const).map((kind) => keptEach(keyOf[kind], ids(kind)));
    return sql<number>`(${sql.join(each, sql` + `)} - ${twice} - ${unseen})`;
  };
  const statusesOf = (condition: (eb: ExpressionBuilder<Database & { s: StatusRow }, 's'>) => Expression<SqlBool>, filter: StatusFilter) =>
    fromStatuses().where(condition).where((eb) => eb.and(filter));
  return {
    insert: inserter(db, 'statuses'),
    getById: byId(db, 'statuses'),
    hold: holder(db, 'statuses'),
    /** Statuses newest first, filtered, those the viewer may read only (`GET /statuses`). */
    async list(viewer: Viewer, now: string, filter: StatusFilter, page: Pagination): Promise<Listed<StatusListed>> {
      const query = statusesOf((eb) => statusReadableBy(eb, viewer, now), filter);
      // The total from kept counts (visibility.ts's rule for totals): a status is in a page or conversation, not both.
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
    /** The statuses of `userId`'s sources that `viewer` may read (`visibility.ts`), and their total; undefined: a page number past `STREAM_PAGE_WINDOW` where stepping would be needed (`domain/content.ts` says so). */
    async stream(userId: string, viewer: Viewer, now: string, page: Pagination): Promise<Listed<StatusListed> | undefined> {
      const total = streamTotal(userId, viewer, now);
      const listed = await streamPage(userId, viewer, now, page, total, selectStatuses, statusExtras(viewer, now));
      if (listed || (page.page - 1) * page.per_page > STREAM_PAGE_WINDOW) return listed;
      // More sources than a page of walks hold the rows a page number skips: reached by cursors, 100 keys a step, each
      // as cheap as a cursor's page; past the end, the rows after '' (no id is less): none, and the total.
      let cursor: string[] | undefined;
      for (let skip = (page.page - 1) * page.per_page; skip > 0 && cursor?.[0] !== ''; skip -= MAX_PER_PAGE) {
        const step = { page: 1, per_page: Math.min(skip, MAX_PER_PAGE), cursor };
        cursor = (await streamPage(userId, viewer, now, step, sql<number>`0`, (q) => q.select('s.id')))!.next ?? [''];
      }
      return (await streamPage(userId, viewer, now, { ...page, page: 1, cursor }, total, selectStatuses, statusExtras(viewer, now)))!;
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
