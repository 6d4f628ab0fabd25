import { expressionBuilder, sql, type Expression, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { FOLLOWABLE_TYPES } from '../shared/schemas/follows.js';
import { fixed } from './dialect.js';
import { notSecretOrSeen, secretPageIdsSeen, visibleTotal, type Viewer } from './visibility.js';
import type { Database } from './schema.js';
import { counted, counterKey, kept, keptEach, listPage, type Embeds, type Listed } from './paging.js';
import { deleter } from './rows.js';
import { embedPage, type PageRow } from './pages.js';
import { embedUser, type UserWithRole } from './users.js';

/** A follow of a secret page says so (`secret_page`): the store's own, neither written nor read by the domain. */
export type FollowRow = Omit<Selectable<Database['follows']>, 'secret_page'>;
/** A follow as its list reads it: with the user or page it follows. */
export type FollowListed = FollowRow & { user?: UserWithRole; page?: PageRow };

export type FollowFilter = Partial<Pick<FollowRow, 'followable_type' | 'followable_id' | 'user_id'>>;

/** A row's copy of its page's secrecy (1 or 0), read from the page as the row is written. */
export const secretPageOf = (pageId: string | null) =>
  sql<number>`coalesce((select case when ${sql.ref('pages.privacy')} = 'secret' then 1 else 0 end from ${sql.table('pages')} where ${sql.ref('pages.id')} = ${pageId}), 0)`;

/** Whether `user` follows the page `page` (each a value or a column): a lookup on the follows' unique index. */
export const followsPage = (user: string | Expression<string>, page: string | Expression<string>) => {
  const eb = expressionBuilder<Database, never>();
  return eb.exists(
    eb.selectFrom('follows as fp').select('fp.id').where('fp.user_id', '=', user).where('fp.followable_type', '=', sql.lit('Page')).where('fp.followable_id', '=', page),
  );
};
/** The users or pages the follows follow: of the type the filter names, else both (ids are unique across them). */
const followablesOf = (type: string | undefined): Embeds => (q, rows) => {
  const users = type === 'Page' ? q : embedUser(q, `${rows}.followable_id`, 'user');
  return type === 'User' ? users : embedPage(users, `${rows}.followable_id`, 'page');
};

export function followsRepo(db: Kysely<Database>) {
  const matching = (filter: FollowFilter) => {
    let q = db.selectFrom('follows');
    if (filter.followable_type !== undefined) q = q.where('follows.followable_type', '=', fixed(filter.followable_type, FOLLOWABLE_TYPES));
    if (filter.followable_id !== undefined) q = q.where('follows.followable_id', '=', filter.followable_id);
    if (filter.user_id !== undefined) q = q.where('follows.user_id', '=', filter.user_id);
    return q;
  };
  const key = (filter: FollowFilter, secret?: string) =>
    counterKey('follows', [filter.followable_type, filter.followable_id, filter.user_id, secret]);

  /** A follow of a secret page would reveal the page: a Member sees those of the secret pages they see only. */
  const seenBy = (query: ReturnType<typeof matching>, viewer: Viewer, filter: FollowFilter) =>
    viewer.isAdmin
      ? query
      : query.where((eb) => notSecretOrSeen(eb, eb('follows.secret_page', '=', sql.lit(0)), 'follows.followable_id', seenPages(viewer, filter)));
  const seenPages = (viewer: Viewer, filter: FollowFilter) => secretPageIdsSeen(viewer.id, filter.followable_id);

  /** A followable's follows are kept with its type (`unkept`): a filter on the followable alone adds both types'. */
  const keysOf = (filter: FollowFilter, secret?: string): string[] =>
    filter.followable_type === undefined && filter.followable_id !== undefined
      ? FOLLOWABLE_TYPES.map((type) => key({ ...filter, followable_type: type }, secret))
      : [key(filter, secret)];

  const total = (filter: FollowFilter, viewer: Viewer): Expression<number> => {
    // A user's follows of one followable: none or one a type, looked up on the unique index (not kept).
    if (filter.user_id !== undefined && filter.followable_id !== undefined) {
      const types = filter.followable_type === undefined ? FOLLOWABLE_TYPES : [fixed(filter.followable_type, FOLLOWABLE_TYPES)];
      return counted(seenBy(matching({ ...filter, followable_type: undefined }).where('follows.followable_type', 'in', types), viewer, filter));
    }
    if (viewer.isAdmin) return kept(keysOf(filter));
    return visibleTotal(kept(keysOf(filter)), kept(keysOf(filter, '1')), seenFollows(filter, viewer));
  };

  /**
   * The filter's follows of the secret pages the viewer sees: kept counts per page, or, for one user's (not kept),
   * counted among their few follows of secret pages (a partial index), not all their follows.
   */
  const seenFollows = (filter: FollowFilter, viewer: Viewer): Expression<number> => {
    if (filter.followable_type !== undefined && filter.followable_type !== 'Page') return kept([]);
    const pages = seenPages(viewer, filter);
    if (filter.user_id === undefined) return keptEach((page) => key({ followable_type: 'Page', followable_id: page }), pages);
    return counted(matching({ user_id: filter.user_id, followable_type: 'Page' }).where('follows.secret_page', '=', sql.lit(1)).where('follows.followable_id', 'in', pages));
  };

  return {
    /** Inserts the follow unless it exists (false), without aborting the transaction on a race. */
    async insertIfAbsent(row: FollowRow): Promise<boolean> {
      const inserted = await db
        .insertInto('follows')
        .values({ ...row, secret_page: secretPageOf(row.followable_type === 'Page' ? row.followable_id : null) })
        .onConflict((oc) => oc.columns(['user_id', 'followable_type', 'followable_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return !!inserted;
    },
    /** The follow if the viewer may know of it (`seenBy`, as the list). */
    getVisible(id: string, viewer: Viewer): Promise<FollowRow | undefined> {
      return seenBy(matching({}).where('follows.id', '=', id), viewer, {}).selectAll('follows').executeTakeFirst();
    },
    find(userId: string, followableType: string, followableId: string): Promise<FollowRow | undefined> {
      return matching({ user_id: userId, followable_type: followableType, followable_id: followableId }).selectAll('follows').executeTakeFirst();
    },
    delete: deleter(db, 'follows'),
    list(filter: FollowFilter, viewer: Viewer, page: Pagination): Promise<Listed<FollowListed>> {
      const walk = { query: seenBy(matching(filter), viewer, filter), keys: ['follows.id'] };
      return listPage<FollowListed>(db, [walk], (q) => q.selectAll('follows'), page, total(filter, viewer), { embeds: followablesOf(filter.followable_type) });
    },
  };
}
