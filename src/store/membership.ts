import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Viewer } from './pages.js';
import type { Database, InviteTable, PageAccessRequestTable } from './schema.js';
import { countOf, offsetOf } from './paging.js';

export type AccessRequestRow = Selectable<PageAccessRequestTable>;
export type InviteRow = Selectable<InviteTable>;

export interface AccessRequestFilter {
  page_id?: string;
  user_id?: string;
  state?: string;
}

export interface InviteFilter {
  target_type?: string;
  target_id?: string;
  user_id?: string;
  user_target_id?: string;
  state?: string;
}

/** Page access requests. Non-administrators see their own requests and those to the pages they created. */
export function accessRequestsRepo(db: Kysely<Database>) {
  const filtered = (filter: AccessRequestFilter, viewer: Viewer) => {
    let q = db.selectFrom('page_access_requests as r').innerJoin('pages', 'pages.id', 'r.page_id');
    if (filter.page_id !== undefined) q = q.where('r.page_id', '=', filter.page_id);
    if (filter.user_id !== undefined) q = q.where('r.user_id', '=', filter.user_id);
    if (filter.state !== undefined) q = q.where('r.state', '=', filter.state);
    if (!viewer.isAdmin)
      q = q.where((eb) => eb.or([eb('r.user_id', '=', viewer.id), eb('pages.user_id', '=', viewer.id)]));
    return q;
  };
  return {
    async insert(row: AccessRequestRow): Promise<void> {
      await db.insertInto('page_access_requests').values(row).execute();
    },
    getById(id: string): Promise<AccessRequestRow | undefined> {
      return db.selectFrom('page_access_requests').selectAll().where('id', '=', id).executeTakeFirst();
    },
    getByIds(ids: string[]): Promise<AccessRequestRow[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db.selectFrom('page_access_requests').selectAll().where('id', 'in', [...new Set(ids)]).execute();
    },
    /** Moves a waiting request on; false when it was no longer waiting (someone else got there first). */
    async accept(id: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('page_access_requests')
        .set({ state: 'accepted', is_validate: 1, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', 'waiting')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async deleteWaiting(id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('page_access_requests')
        .where('id', '=', id)
        .where('state', '=', 'waiting')
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async list(filter: AccessRequestFilter, viewer: Viewer, page: Pagination) {
      const [rows, total] = await Promise.all([
        filtered(filter, viewer).selectAll('r').orderBy('r.id').limit(page.per_page).offset(offsetOf(page)).execute(),
        countOf(filtered(filter, viewer)),
      ]);
      return { rows, total };
    },
  };
}
export type AccessRequestsRepo = ReturnType<typeof accessRequestsRepo>;

/** Invites. Non-administrators see the invites they sent or received and those to pages they created. */
export function invitesRepo(db: Kysely<Database>) {
  const filtered = (filter: InviteFilter, viewer: Viewer) => {
    let q = db.selectFrom('invites as i').innerJoin('pages', 'pages.id', 'i.target_id');
    if (filter.target_type !== undefined) q = q.where('i.target_type', '=', filter.target_type);
    if (filter.target_id !== undefined) q = q.where('i.target_id', '=', filter.target_id);
    if (filter.user_id !== undefined) q = q.where('i.user_id', '=', filter.user_id);
    if (filter.user_target_id !== undefined) q = q.where('i.user_target_id', '=', filter.user_target_id);
    if (filter.state !== undefined) q = q.where('i.state', '=', filter.state);
    if (!viewer.isAdmin)
      q = q.where((eb) =>
        eb.or([eb('i.user_id', '=', viewer.id), eb('i.user_target_id', '=', viewer.id), eb('pages.user_id', '=', viewer.id)]),
      );
    return q;
  };
  return {
    async insert(row: InviteRow): Promise<void> {
      await db.insertInto('invites').values(row).execute();
    },
    getById(id: string): Promise<InviteRow | undefined> {
      return db.selectFrom('invites').selectAll().where('id', '=', id).executeTakeFirst();
    },
    getByIds(ids: string[]): Promise<InviteRow[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db.selectFrom('invites').selectAll().where('id', 'in', [...new Set(ids)]).execute();
    },
    findWaiting(targetId: string, userTargetId: string): Promise<InviteRow | undefined> {
      return db
        .selectFrom('invites')
        .selectAll()
        .where('target_id', '=', targetId)
        .where('user_target_id', '=', userTargetId)
        .where('state', '=', 'waiting')
        .executeTakeFirst();
    },
    /** Settles a waiting invite; false when it was no longer waiting. */
    async settle(id: string, accepted: boolean, now: string): Promise<boolean> {
      const result = await db
        .updateTable('invites')
        .set({
          state: accepted ? 'accepted' : 'refused',
          is_validate: accepted ? 1 : 0,
          is_accepted: accepted ? 1 : 0,
          updated_at: now,
        })
        .where('id', '=', id)
        .where('state', '=', 'waiting')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('invites').where('id', '=', id).execute();
    },
    async list(filter: InviteFilter, viewer: Viewer, page: Pagination) {
      const [rows, total] = await Promise.all([
        filtered(filter, viewer).selectAll('i').orderBy('i.id').limit(page.per_page).offset(offsetOf(page)).execute(),
        countOf(filtered(filter, viewer)),
      ]);
      return { rows, total };
    },
  };
}
export type InvitesRepo = ReturnType<typeof invitesRepo>;
