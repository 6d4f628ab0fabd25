import { sql, type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from './schema.js';

/**
 * Who sees what, once per resource: the single read, the list, its total and the kept counts it adds up all
 * follow the rules written here.
 */

/** Who is looking: an administrator sees everything; a Member what the rules below let them. */
export interface Viewer {
  id: string;
  isAdmin: boolean;
}

/**
 * Pages. A page that is not secret is seen by everyone; a secret one by its creator and by those who follow it
 * (its members), and by administrators. What is in a secret page (its follows, events, statuses) is as hidden as
 * the page. A single read tests the rule in SQL (`pageVisibleTo`); a list walks the rows that are not of a secret
 * page or are of one the Member sees (`notSecretOrSeen`, looking in `secretPageIdsSeen`: a few per user, walked by
 * index), in the same statement as its total: the kept count of all rows, less those of secret pages, plus those
 * of the secret pages seen (`visibleTotal`).
 */
export function pageVisibleTo(eb: ExpressionBuilder<Database, 'pages'>, viewer: Viewer) {
  return eb.or([
    eb('pages.privacy', '!=', 'secret'),
    eb('pages.user_id', '=', viewer.id),
    eb.exists(
      eb
        .selectFrom('follows')
        .select('follows.id')
        .whereRef('follows.followable_id', '=', 'pages.id')
        .where('follows.followable_type', '=', sql.lit('Page'))
        .where('follows.user_id', '=', viewer.id),
    ),
  ]);
}

/**
 * The ids of the secret pages a Member sees, as a subquery a list's statement looks in: their follows of secret
 * pages (the follow's copy of its page's secrecy, on a partial index) and the secret pages they created.
 */
export function secretPageIdsSeen(db: Kysely<Database>, viewer: string, only?: string) {
  const ids = db
    .selectFrom('follows')
    .select('follows.followable_id as id')
    .where('follows.user_id', '=', viewer)
    .where('follows.followable_type', '=', sql.lit('Page'))
    .where('follows.secret_page', '=', sql.lit(1))
    .unionAll(db.selectFrom('pages').select('pages.id').where('pages.user_id', '=', viewer).where('pages.privacy', '=', 'secret'));
  // One page's question (a list filtered to one page): is it among them?
  return only === undefined ? ids : db.selectFrom(ids.as('seen')).select('seen.id').where('seen.id', '=', only);
}

/**
 * A list's condition: the row is not of a secret page (`notSecret`), or its page (`page`) is among those seen.
 * Tested entry by entry on an index that carries the secrecy after the order, so the set is looked in only for a
 * row of a secret page.
 */
export function notSecretOrSeen(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  eb: ExpressionBuilder<any, any>,
  notSecret: Expression<SqlBool>,
  page: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  seen: readonly string[] | SelectQueryBuilder<any, any, any>,
): Expression<SqlBool> {
  if (Array.isArray(seen)) return seen.length ? eb.or([notSecret, eb(page, 'in', seen)]) : notSecret;
  return eb.or([notSecret, eb(page, 'in', seen)]);
}

/** A Member's total from kept counts: all rows, less those of secret pages, plus those of the secret pages seen. */
export const visibleTotal = (all: Expression<number>, ofSecretPages: Expression<number>, ofPagesSeen: Expression<number>): Expression<number> =>
  sql<number>`(${all} - ${ofSecretPages} + ${ofPagesSeen})`;

/**
 * Access requests: the administrators, the user who asks, and the page's creator (who settles it). Invites: the
 * administrators, its sender, the invited user, and the page's creator. Written as data: a list walks one index per
 * condition (its total by inclusion–exclusion over the kept counts), and a single read tests the same conditions.
 */
export function accessRequestsSeenBy(viewer: Viewer): 'all' | { user_id?: string; owner?: string }[] {
  return viewer.isAdmin ? 'all' : [{ user_id: viewer.id }, { owner: viewer.id }];
}

export function invitesSeenBy(viewer: Viewer): 'all' | { user_id?: string; user_target_id?: string; owner?: string }[] {
  return viewer.isAdmin ? 'all' : [{ user_id: viewer.id }, { user_target_id: viewer.id }, { owner: viewer.id }];
}

/**
 * Statuses: a status posted in a page reaches the page's followers, one in an event the event's attendees and
 * creator; a user's followers see their statuses that are in no page and no event, or in a public page (a private
 * page's reach its members through the page).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function reachesFollowers(eb: ExpressionBuilder<any, any>) {
  return eb.and([
    eb('s.event_id', 'is', null),
    eb.or([
      eb('s.page_id', 'is', null),
      eb.exists(eb.selectFrom('pages').select('pages.id').whereRef('pages.id', '=', 's.page_id').where('pages.privacy', '=', 'public')),
    ]),
  ]);
}
