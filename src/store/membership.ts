import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import type { Viewer } from './pages.js';
import type { Database, InviteTable, PageAccessRequestTable } from './schema.js';
import { counterKey, narrowed, type Listed, type Walk, Pager } from './paging.js';

/** The page's owner is the store's own (a trigger writes it): the domain neither writes nor reads it. */
export type AccessRequestRow = Omit<Selectable<PageAccessRequestTable>, 'page_owner_id'>;
export type InviteRow = Omit<Selectable<InviteTable>, 'page_owner_id'>;

/**
 * A waiting record joins the moderation queue with its page's creator, read from the page in the same
 * statement. Callers run inside a transaction (as every change does), so the queue never disagrees.
 */
async function enqueue(db: Kysely<Database>, kind: 'page_access_request' | 'invite', id: string, pageId: string, userId: string, createdAt: string) {
  await db
    .insertInto('moderation_queue')
    .columns(['id', 'kind', 'page_id', 'page_owner_id', 'user_id', 'created_at'])
    .expression(
      db
        .selectFrom('pages')
        .select((eb) => [
          eb.val(id).as('id'),
          eb.val(kind).as('kind'),
          'pages.id',
          'pages.user_id',
          eb.val(userId).as('user_id'),
          eb.val(createdAt).as('created_at'),
        ])
        .where('pages.id', '=', pageId),
    )
    .execute();
}

const dequeue = (db: Kysely<Database>, id: string) => db.deleteFrom('moderation_queue').where('id', '=', id).execute();

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
export function accessRequestsRepo(db: Kysely<Database>, pager: Pager = new Pager()) {
  const matching = (filter: AccessRequestFilter & { owner?: string }) => {
    let q = db.selectFrom('page_access_requests as r');
    if (filter.page_id !== undefined) q = q.where('r.page_id', '=', filter.page_id);
    if (filter.user_id !== undefined) q = q.where('r.user_id', '=', filter.user_id);
    if (filter.state !== undefined) q = q.where('r.state', '=', filter.state);
    if (filter.owner !== undefined) q = q.where('r.page_owner_id', '=', filter.owner);
    return q;
  };
  const key = (f: AccessRequestFilter & { owner?: string }) =>
    counterKey('page_access_requests', [f.page_id, f.user_id, f.state, f.owner]);
  /** A Member's: their own requests, and those to the pages they created (inclusion–exclusion of both). */
  const parts = (filter: AccessRequestFilter, viewer: Viewer) =>
    viewer.isAdmin ? { walks: [filter], plus: [filter], minus: [] } : unionOf<AccessRequestFilter & { owner?: string }>(filter, [{ user_id: viewer.id }, { owner: viewer.id }]);
  return {
    async insert(row: AccessRequestRow): Promise<void> {
      await db.insertInto('page_access_requests').values(row).execute();
      if (row.state === 'waiting') await enqueue(db, 'page_access_request', row.id, row.page_id, row.user_id, row.created_at);
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
      if (Number(result.numUpdatedRows) !== 1) return false;
      await dequeue(db, id);
      return true;
    },
    async deleteWaiting(id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('page_access_requests')
        .where('id', '=', id)
        .where('state', '=', 'waiting')
        .executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) return false;
      await dequeue(db, id);
      return true;
    },
    async list(filter: AccessRequestFilter, viewer: Viewer, page: Pagination): Promise<Listed<AccessRequestRow>> {
      const { walks, plus, minus } = parts(filter, viewer);
      return listed(db, pager, walks.map((f) => ({ query: matching(f), keys: ['r.id'] })), plus.map(key), minus.map(key), page, (q) =>
        q.select(['r.id', 'r.page_id', 'r.user_id', 'r.state', 'r.is_validate', 'r.created_at', 'r.updated_at']),
      );
    },
  };
}
export type AccessRequestsRepo = ReturnType<typeof accessRequestsRepo>;

/** Invites. Non-administrators see the invites they sent or received and those to pages they created. */
export function invitesRepo(db: Kysely<Database>, pager: Pager = new Pager()) {
  const matching = (filter: InviteFilter & { owner?: string }) => {
    let q = db.selectFrom('invites as i');
    // Pages are the only targets.
    if (filter.target_type !== undefined && filter.target_type !== 'Page') q = q.where('i.target_type', '=', filter.target_type);
    if (filter.target_id !== undefined) q = q.where('i.target_id', '=', filter.target_id);
    if (filter.user_id !== undefined) q = q.where('i.user_id', '=', filter.user_id);
    if (filter.user_target_id !== undefined) q = q.where('i.user_target_id', '=', filter.user_target_id);
    if (filter.state !== undefined) q = q.where('i.state', '=', filter.state);
    if (filter.owner !== undefined) q = q.where('i.page_owner_id', '=', filter.owner);
    return q;
  };
  const key = (f: InviteFilter & { owner?: string }) =>
    f.target_type !== undefined && f.target_type !== 'Page'
      ? counterKey('invites', ['none'])
      : counterKey('invites', [f.target_id, f.user_id, f.user_target_id, f.state, f.owner]);
  /** A Member's: the invites they sent or received, and those to the pages they created. */
  const parts = (filter: InviteFilter, viewer: Viewer) =>
    viewer.isAdmin
      ? { walks: [filter], plus: [filter], minus: [] }
      : unionOf<InviteFilter & { owner?: string }>(filter, [{ user_id: viewer.id }, { user_target_id: viewer.id }, { owner: viewer.id }]);
  return {
    async insert(row: InviteRow): Promise<void> {
      await db.insertInto('invites').values(row).execute();
      if (row.state === 'waiting') await enqueue(db, 'invite', row.id, row.target_id, row.user_target_id, row.created_at);
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
      if (Number(result.numUpdatedRows) !== 1) return false;
      await dequeue(db, id);
      return true;
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('invites').where('id', '=', id).execute();
      await dequeue(db, id);
    },
    async list(filter: InviteFilter, viewer: Viewer, page: Pagination): Promise<Listed<InviteRow>> {
      const { walks, plus, minus } = parts(filter, viewer);
      return listed(db, pager, walks.map((f) => ({ query: matching(f), keys: ['i.id'] })), plus.map(key), minus.map(key), page, (q) =>
        q.select([
          'i.id', 'i.target_type', 'i.target_id', 'i.user_id', 'i.user_target_id', 'i.state', 'i.is_validate', 'i.is_accepted',
          'i.created_at', 'i.updated_at',
        ]),
      );
    },
  };
}
export type InvitesRepo = ReturnType<typeof invitesRepo>;

/**
 * A filter joined with "any of these conditions" (a Member's own rows): one walk per condition, and the
 * count by inclusion–exclusion over the kept counts of every intersection.
 */
function unionOf<F extends object>(filter: F, anyOf: Partial<F>[]) {
  const walks = anyOf.map((c) => narrowed(filter, c)).filter((f): f is F => f !== null);
  const plus: F[] = [];
  const minus: F[] = [];
  for (let mask = 1; mask < 1 << anyOf.length; mask++) {
    let f: F | null = filter;
    for (let i = 0; i < anyOf.length && f; i++) if (mask & (1 << i)) f = narrowed(f, anyOf[i]!);
    if (!f) continue;
    const bits = mask.toString(2).replaceAll('0', '').length;
    (bits % 2 ? plus : minus).push(f);
  }
  return { walks, plus, minus };
}

async function listed<Row>(
  db: Kysely<Database>,
  pager: Pager,
  walks: Walk[],
  plus: string[],
  minus: string[],
  page: Pagination,
  select: Parameters<Pager['walk']>[1],
): Promise<Listed<Row>> {
  if (walks.length === 0) return { rows: [], total: 0 };
  const [walked, counts] = await Promise.all([pager.walk<Row>(walks, select, page), pager.counts(db, [...plus, ...minus])]);
  const total = counts.slice(0, plus.length).reduce((a, b) => a + b, 0) - counts.slice(plus.length).reduce((a, b) => a + b, 0);
  return { ...walked, total };
}
