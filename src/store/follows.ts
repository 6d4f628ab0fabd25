import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Viewer } from './pages.js';
import type { Database, FollowTable } from './schema.js';
import { counterKey, counterOf, countersOf, narrowed, walkPage, type Listed, type Walk } from './paging.js';

export type FollowRow = Selectable<FollowTable>;

export interface FollowFilter {
  followable_type?: string;
  followable_id?: string;
  user_id?: string;
}

export function followsRepo(db: Kysely<Database>) {
  const matching = (filter: FollowFilter) => {
    let q = db.selectFrom('follows');
    if (filter.followable_type !== undefined) q = q.where('follows.followable_type', '=', filter.followable_type);
    if (filter.followable_id !== undefined) q = q.where('follows.followable_id', '=', filter.followable_id);
    if (filter.user_id !== undefined) q = q.where('follows.user_id', '=', filter.user_id);
    return q;
  };
  const key = (filter: FollowFilter, secret?: string) =>
    counterKey('follows', [filter.followable_type, filter.followable_id, filter.user_id, secret]);
  const keys = ['follows.id'];

  /**
   * A follow of a secret page would reveal the page: a Member sees follows of users, of pages that are not
   * secret, and of the secret pages they see themselves (one walk each: a user is in few of them).
   */
  const walks = (filter: FollowFilter, viewer: Viewer, secretSeen: string[]): Walk[] => {
    if (viewer.isAdmin) return [{ query: matching(filter), keys }];
    const result: Walk[] = [];
    const users = narrowed(filter, { followable_type: 'User' });
    if (users) result.push({ query: matching(users), keys });
    const pages = narrowed(filter, { followable_type: 'Page' });
    if (pages) {
      result.push({
        query: matching(pages).where(({ exists, selectFrom, not }) =>
          not(
            exists(
              selectFrom('pages').select('pages.id').whereRef('pages.id', '=', 'follows.followable_id').where('pages.privacy', '=', 'secret'),
            ),
          ),
        ),
        keys,
      });
      for (const page of secretSeen) {
        const one = narrowed(pages, { followable_id: page });
        if (one) result.push({ query: matching(one), keys });
      }
    }
    return result;
  };

  /** All matching follows, less those of secret pages, plus those of the secret pages the viewer sees. */
  const total = async (filter: FollowFilter, viewer: Viewer, secretSeen: string[]): Promise<number> => {
    if (viewer.isAdmin) return counterOf(db, key(filter));
    const seen = secretSeen.flatMap((page) => {
      const one = narrowed(filter, { followable_type: 'Page', followable_id: page });
      return one ? [key(one)] : [];
    });
    const [all, secret, ...visible] = await countersOf(db, [key(filter), key(filter, '1'), ...seen]);
    return all! - secret! + visible.reduce((a, b) => a + b, 0);
  };

  return {
    async insert(row: FollowRow): Promise<void> {
      await db.insertInto('follows').values(row).execute();
    },
    /** Inserts the follow unless it exists (`ON CONFLICT … DO NOTHING`: never aborts the transaction); false when it did. */
    async insertIfAbsent(row: FollowRow): Promise<boolean> {
      const inserted = await db
        .insertInto('follows')
        .values(row)
        .onConflict((oc) => oc.columns(['user_id', 'followable_type', 'followable_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return !!inserted;
    },
    getById(id: string): Promise<FollowRow | undefined> {
      return db.selectFrom('follows').selectAll().where('id', '=', id).executeTakeFirst();
    },
    find(userId: string, followableType: string, followableId: string): Promise<FollowRow | undefined> {
      return db
        .selectFrom('follows')
        .selectAll()
        .where('user_id', '=', userId)
        .where('followable_type', '=', followableType)
        .where('followable_id', '=', followableId)
        .executeTakeFirst();
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('follows').where('id', '=', id).execute();
    },
    /** `secretSeen`: the secret pages the viewer sees (pages.secretSeenBy), for a Member. */
    async list(filter: FollowFilter, viewer: Viewer, secretSeen: string[], page: Pagination): Promise<Listed<FollowRow>> {
      const [walked, n] = await Promise.all([
        walkPage<FollowRow>(db, walks(filter, viewer, secretSeen), (q) => q.selectAll('follows'), page),
        total(filter, viewer, secretSeen),
      ]);
      return { ...walked, total: n };
    },
  };
}
export type FollowsRepo = ReturnType<typeof followsRepo>;
