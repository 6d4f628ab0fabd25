import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import { SYSTEM_ROLES } from './default-roles.js';
import type { AnyQuery } from './paging.js';
import type { Database } from './schema.js';

/** Who sees what, once per resource: the single read, the list and its total all follow the rules written here. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyEb = ExpressionBuilder<any, any>;

/** Who is looking: an administrator sees everything; a Member what the rules below let them. */
export interface Viewer {
  id: string;
  isAdmin: boolean;
}

/**
 * A secret page is seen by its creator, its members (followers) and administrators; what is in it is as hidden:
 * follows' and events' reads test `notSecretOrSeen` over these ids, their totals take `visibleTotal` (statuses: the
 * status rule below).
 *
 * The ids of the secret pages a Member follows or created (with `only`: that page, if among them). SQL text: it is in
 * every Member's list, and a builder costs several times as much to build and compile each request.
 */
export function secretPageIdsSeen(viewer: string, only?: string): RawBuilder<string> {
  const ids = sql`select followable_id as id from follows where user_id = ${viewer} and followable_type = 'Page' and secret_page = 1
    union all select id from pages where user_id = ${viewer} and privacy = 'secret'`;
  return only === undefined ? sql`(${ids})` : sql`(select id from (${ids}) as seen where id = ${only})`;
}

/** The row is not of a secret page, or its page is seen (looked up only for a secret page's row, on the index). */
export const notSecretOrSeen = (eb: AnyEb, notSecret: Expression<SqlBool>, page: string, seen: RawBuilder<string>) =>
  eb.or([notSecret, eb(page, 'in', seen)]);

/** A Member's total from kept counts: all rows, less those of secret pages, plus those of the secret pages seen. */
export const visibleTotal = (all: Expression<number>, ofSecretPages: Expression<number>, ofPagesSeen: Expression<number>): Expression<number> =>
  sql<number>`(${all} - ${ofSecretPages} + ${ofPagesSeen})`;

/**
 * Who sees access requests (the asker, the page's creator), invites (the sender, the invited, the page's creator) and
 * reports (the reporter, the creator of the page the content is in); administrators all. As data: `filteredBy`
 * (paging.ts) walks an index per filter.
 */
export function accessRequestsSeenBy(viewer: Viewer): 'all' | { user_id?: string; owner?: string }[] {
  return viewer.isAdmin ? 'all' : [{ user_id: viewer.id }, { owner: viewer.id }];
}

/** A report as an access request: by the one who made it and the page's creator. */
export const reportsSeenBy = accessRequestsSeenBy;

export function invitesSeenBy(viewer: Viewer): 'all' | { user_id?: string; user_target_id?: string; owner?: string }[] {
  return viewer.isAdmin ? 'all' : [{ user_id: viewer.id }, { user_target_id: viewer.id }, { owner: viewer.id }];
}

/**
 * The moderation queue is what a viewer may settle: what waits on, and the open reports on content in, the pages they
 * created (`page_owner_id` of the row in `column`); administrators all. Not their own requests or reports.
 */
export const settledBy = <Q extends AnyQuery>(viewer: Viewer, column: string, query: Q): Q =>
  viewer.isAdmin ? query : (query.where(column, '=', viewer.id) as Q);

/** A user's followers get their statuses in no page and no event, or in a public page (others reach via the place). */
export function reachesFollowers(eb: AnyEb) {
  return eb.and([
    eb('s.event_id', 'is', null),
    eb.or([eb('s.page_id', 'is', null), found(eb.selectFrom('pages').whereRef('pages.id', '=', 's.page_id').where('pages.privacy', '=', 'public'))]),
  ]);
}

/**
 * The key lookup finds its row, tested row by row. Not `exists`: PostgreSQL plans it as a whole, hashing every row it
 * could find under an `or`, or (as an anti-join with a table it thinks empty) reading and sorting a whole range.
 */
const found = (query: AnyQuery): Expression<SqlBool> =>
  sql<SqlBool>`coalesce((${query.select(sql<boolean>`true`.as('found'))}), false)`;

/** The user (an id, or the column holding it) is in the page whose row is `alias`: its creator, or a member. */
function inPage(eb: AnyEb, user: string | Expression<string>, alias: string) {
  const follows = eb.selectFrom('follows as vf').select('vf.id').whereRef('vf.followable_id', '=', `${alias}.id`);
  return eb.or([eb(`${alias}.user_id`, '=', user), eb.exists(follows.where('vf.followable_type', '=', sql.lit('Page')).where('vf.user_id', '=', user))]);
}

/**
 * The user in the column `user` reads what is in the closed page `page` as `statusOpenTo` has it: an Admin, or in
 * the page. Asked as a fan-out's batch runs, so that those told of a conversation are those who may read it then.
 */
export function readsInPage(eb: AnyEb, user: Expression<string>, page: string): Expression<SqlBool> {
  const admin = eb.selectFrom('users as au').innerJoin('permission_sets as ar', 'ar.id', 'au.permission_set_id').where('ar.system_key', '=', SYSTEM_ROLES.admins);
  return eb.or([found(admin.where('au.id', '=', user)), found(eb.selectFrom('pages as ip').where('ip.id', '=', page).where((p) => inPage(p, user, 'ip')))]);
}

/** The users suspended at `now` (`suspensions as su`; a suspension past its `until` is over by itself). */
export const suspendedAt = (eb: Pick<AnyEb, 'selectFrom'>, now: string) =>
  eb.selectFrom('suspensions as su').where((w) => w.or([w('su.until', 'is', null), w('su.until', '>', now)]));

/**
 * Content by an author suspended at `now` is hidden from all but Admins. A lookup per row (`found`), not a list of the
 * suspended, which each of a stream's walks would build for itself.
 */
export const authorShown = (eb: AnyEb, viewer: Viewer, now: string, column: string): Expression<SqlBool> =>
  viewer.isAdmin ? eb.lit(true) : eb.not(found(suspendedAt(eb, now).whereRef('su.user_id', '=', sql.ref(column))));
/** How many rows `authorShown` leaves out of a count: a range per suspended author (few), not a test of every row. */
export function ofSuspendedAuthors(viewer: Viewer, now: string, byAuthor: (author: Expression<string>) => AnyQuery): RawBuilder<number> {
  if (viewer.isAdmin) return sql<number>`0`;
  const each = byAuthor(sql.ref<string>('su.user_id')).select(sql<number>`count(*)`.as('n'));
  return sql<number>`(${suspendedAt(expressionBuilder<Database, never>(), now).select(sql<number>`coalesce(sum((${each})), 0)`.as('n'))})`;
}

/**
 * Statuses (`statuses as s`; comments follow theirs). Two halves, so one statement tells 404 from 403: known (author
 * not suspended, not in a secret page the viewer is not in) and open (a page's for its members, a public page's for
 * all; an event's conversation for its creator and those who answered yes or maybe, in a private or secret page
 * those of them in it: the page's promise outlasts an answer given while in it). Readable is both; Admins all.
 */
export function statusKnownTo(eb: AnyEb, viewer: Viewer, now: string): Expression<SqlBool> {
  if (viewer.isAdmin) return eb.lit(true);
  return eb.and([authorShown(eb, viewer, now, 's.user_id'), placeKnownTo(eb, viewer)]);
}

/** `statusKnownTo` but the author: in no secret page (its own, or its event's) the viewer is not in. */
const placeKnownTo = (eb: AnyEb, viewer: Viewer): Expression<SqlBool> =>
  eb.and([eb.not(eb.exists(pageNotIn(eb, viewer, 'secret').select('np.id').whereRef('np.id', '=', 's.page_id'))), eventPageIn(eb, viewer, 's.event_id', 'secret')]);

/** A page the viewer is not in (`pages as np`) that hides what is in it (`secret`) or closes it (`closed`). */
const pageNotIn = (eb: AnyEb, viewer: Viewer, hides: 'secret' | 'closed') =>
  eb.selectFrom('pages as np').where('np.privacy', 'in', hides === 'secret' ? ['secret'] : ['private', 'secret']).where((p) => p.not(inPage(p, viewer.id, 'np')));

/** The event whose id is in `event` (if any) is in no such page: its statuses are known, or may be open. */
export function eventPageIn(eb: AnyEb, viewer: Viewer, event: string, hides: 'secret' | 'closed'): Expression<SqlBool> {
  if (viewer.isAdmin) return eb.lit(true);
  const pageOfEvent = eb.selectFrom('events as se').select('se.page_id').whereRef('se.id', '=', event);
  return eb.not(found(pageNotIn(eb, viewer, hides).where('np.id', '=', pageOfEvent)));
}

export function statusOpenTo(eb: AnyEb, viewer: Viewer): Expression<SqlBool> {
  if (viewer.isAdmin) return eb.lit(true);
  const otherEvent = eb.selectFrom('events as oe').whereRef('oe.id', '=', 's.event_id').where('oe.user_id', '!=', viewer.id);
  const answered = eb.selectFrom('event_attendances as oa').select('oa.event_id').where('oa.user_id', '=', viewer.id).where('oa.answer', 'in', ['yes', 'maybe']);
  const closedPage = found(pageNotIn(eb, viewer, 'closed').whereRef('np.id', '=', 's.page_id'));
  return eb.and([eb.not(closedPage), eventPageIn(eb, viewer, 's.event_id', 'closed'), eb.not(found(otherEvent.where('oe.id', 'not in', answered)))]);
}

export const statusReadableBy = (eb: AnyEb, viewer: Viewer, now: string): Expression<SqlBool> =>
  viewer.isAdmin ? eb.lit(true) : eb.and([authorShown(eb, viewer, now, 's.user_id'), statusPlaceReadableBy(eb, viewer)]);

/** `statusReadableBy` but its author: the place (page or conversation) is one the viewer knows and may read. */
export const statusPlaceReadableBy = (eb: AnyEb, viewer: Viewer): Expression<SqlBool> => eb.and([placeKnownTo(eb, viewer), statusOpenTo(eb, viewer)]);

/**
 * For totals from kept counts: a viewer reads the open statuses (the flag), those of the closed pages they are in
 * (this) and of their conversations (`conversationsIn`), less suspended authors' (`ofSuspendedAuthors`).
 */
export function closedPagesIn(viewer: string, only?: string): RawBuilder<string> {
  const ids = sql`select p.id from follows as f inner join pages as p on p.id = f.followable_id
    where f.user_id = ${viewer} and f.followable_type = 'Page' and p.privacy != 'public'
    union all select id from pages where user_id = ${viewer} and privacy != 'public'`;
  return only === undefined ? sql`(${ids})` : sql`(select id from (${ids}) as closed where id = ${only})`;
}

export function conversationsIn(viewer: Viewer, only?: string): RawBuilder<string> {
  const eb = expressionBuilder<Database, never>();
  const created = eb.selectFrom('events as ce').select('ce.id as id').where('ce.user_id', '=', viewer.id);
  const answered = eb
    .selectFrom('event_attendances as ca')
    .select('ca.event_id as id')
    .where('ca.user_id', '=', viewer.id)
    .where('ca.answer', 'in', ['yes', 'maybe']);
  const events = eb
    .selectFrom(created.unionAll(answered).as('c'))
    .select('c.id')
    .where((w) => eventPageIn(w, viewer, 'c.id', 'closed'));
  return sql<string>`${only === undefined ? events : events.where('c.id', '=', only)}`;
}
