import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { pageVisibleTo, type Viewer } from './pages.js';
import type { Database, FollowTable } from './schema.js';
import { countOf, offsetOf } from './paging.js';

export type FollowRow = Selectable<FollowTable>;

export interface FollowFilter {
  followable_type?: string;
  followable_id?: string;
  user_id?: string;
}

export function followsRepo(db: Kysely<Database>) {
  const filtered = (filter: FollowFilter, viewer: Viewer) => {
    let q = db.selectFrom('follows');
    if (filter.followable_type !== undefined) q = q.where('follows.followable_type', '=', filter.followable_type);
    if (filter.followable_id !== undefined) q = q.where('follows.followable_id', '=', filter.followable_id);
    if (filter.user_id !== undefined) q = q.where('follows.user_id', '=', filter.user_id);
    if (!viewer.isAdmin) {
      // A follow of a secret page would reveal the page: show it only to those who can see the page.
      q = q.where((eb) =>
        eb.or([
          eb('follows.followable_type', '!=', 'Page'),
          eb.exists(
            eb
              .selectFrom('pages')
              .select('pages.id')
              .whereRef('pages.id', '=', 'follows.followable_id')
              .where((inner) => pageVisibleTo(inner, viewer)),
          ),
        ]),
      );
    }
    return q;
  };

  return {
    async insert(row: FollowRow): Promise<void> {
      await db.insertInto('follows').values(row).execute();
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
    async list(filter: FollowFilter, viewer: Viewer, page: Pagination): Promise<{ rows: FollowRow[]; total: number }> {
      const [rows, total] = await Promise.all([
        filtered(filter, viewer)
          .selectAll('follows')
          .orderBy('follows.id')
          .limit(page.per_page)
          .offset(offsetOf(page))
          .execute(),
        countOf(filtered(filter, viewer)),
      ]);
      return { rows, total };
    },
  };
}
export type FollowsRepo = ReturnType<typeof followsRepo>;
