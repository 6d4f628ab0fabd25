import { sql, type Expression, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { ACCESS_REQUEST_STATES, INVITE_STATES } from '../shared/schemas/membership.js';
import { accessRequestsSeenBy, invitesSeenBy, type Viewer } from './visibility.js';
import type { Database } from './schema.js';
import { filteredBy, type AnyDb, type Dimension, type Embeds, type Filter, type Listed, type SeenBy, type Selection } from './paging.js';
import { embedPage, type PageRow } from './pages.js';
import { embedUser, type UserWithRole } from './users.js';

/** The page's owner is the store's own (a trigger writes it): the domain neither writes nor reads it. */
export type AccessRequestRow = Omit<Selectable<Database['page_access_requests']>, 'page_owner_id'>;
export type InviteRow = Omit<Selectable<Database['invites']>, 'page_owner_id'>;
/** As their lists read them: with the users and the page they show. */
export type AccessRequestListed = AccessRequestRow & { user?: UserWithRole; page?: PageRow };
export type InviteListed = InviteRow & { user?: UserWithRole; user_target?: UserWithRole; target?: PageRow };

export type AccessRequestFilter = Partial<Pick<AccessRequestRow, 'page_id' | 'user_id' | 'state'>>;
export type InviteFilter = Partial<Pick<InviteRow, 'target_id' | 'user_id' | 'user_target_id' | 'state'>>;

/**
 * Whose page a row is in: its copy of the creator, or with the page named, the creator looked up once. Tested on each
 * row, PostgreSQL misjudged it and read and sorted all of a popular page's requests rather than walk them.
 */
const ownerOf = (copy: string, page: string | undefined): Expression<string> =>
  page === undefined ? sql.ref(copy) : sql<string>`(select p.user_id from pages as p where p.id = ${page})`;

/** What differs between access requests and invites: both wait on a page's administrators, in the moderation queue. */
interface Waiting<F extends Filter<F>> {
  table: 'page_access_requests' | 'invites';
  alias: string;
  kind: 'page_access_request' | 'invite';
  /** The columns of the page and of the user it waits on: one waiting row per pair (a partial unique index). */
  page: 'page_id' | 'target_id';
  user: 'user_id' | 'user_target_id';
  columns: readonly string[];
  /** The kept counts' dimensions, in their keys' order (migration 0005). */
  dims: readonly Dimension<F & { owner?: string }>[];
  seenBy: (viewer: Viewer) => SeenBy<F & { owner?: string }>;
  embeds: Embeds;
}

function waitingRepo<Row extends { id: string; created_at: string }, Listed_, F extends Filter<F>>(db: Kysely<Database>, spec: Waiting<F>) {
  const { table, alias } = spec;
  const rows = filteredBy<F & { owner?: string }>(db, `${table} as ${alias}`, table, spec.dims);
  const any = db as unknown as AnyDb;
  const select: Selection = (q) => q.select(spec.columns);
  const dequeue = (id: string) => db.deleteFrom('moderation_queue').where('id', '=', id).execute();
  return {
    /** Inserts a waiting row unless one waits for the pair (false): a race ends in one row, the loser not aborted. */
    async insertWaiting(row: Row & { state: 'waiting' }): Promise<boolean> {
      const inserted = await any
        .insertInto(table)
        .values(row)
        .onConflict((oc) => oc.columns([spec.page, spec.user]).where('state', '=', sql.lit('waiting')).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return false;
      // It joins the moderation queue, with its page's creator, in the same transaction.
      const { [spec.page]: pageId, [spec.user]: userId } = row as unknown as Record<string, string>;
      const owner = db.selectFrom('pages').select('pages.user_id').where('pages.id', '=', pageId!);
      await db
        .insertInto('moderation_queue')
        .values({ id: row.id, kind: spec.kind, page_id: pageId!, page_owner_id: owner, user_id: userId!, created_at: row.created_at })
        .execute();
      return true;
    },
    /** Whether a row matches (one waiting for a page and user: its partial unique index's row). */
    has: (filter: F) => rows.has(filter),
    getById: (id: string) => any.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst() as Promise<Row | undefined>,
    /** The row if the viewer may know of it (`seenBy`, as the list). */
    getVisible: (id: string, viewer: Viewer): Promise<Row | undefined> =>
      select(rows.visible(id, spec.seenBy(viewer))).executeTakeFirst(),
    getByIds: async (ids: string[]): Promise<Row[]> =>
      ids.length ? ((await any.selectFrom(table).selectAll().where('id', 'in', [...new Set(ids)]).execute()) as Row[]) : [],
    /** Settles a waiting row (it leaves the queue); false when someone else settled it first. */
    async settle(id: string, changes: Partial<Row>): Promise<boolean> {
      const result = await any.updateTable(table).set(changes).where('id', '=', id).where('state', '=', sql.lit('waiting')).executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await dequeue(id);
      return true;
    },
    /** Deletes the row, or only while it waits; false when there was none to delete. */
    async delete(id: string, { onlyWaiting = false } = {}): Promise<boolean> {
      let query = any.deleteFrom(table).where('id', '=', id);
      if (onlyWaiting) query = query.where('state', '=', sql.lit('waiting'));
      if (Number((await query.executeTakeFirst()).numDeletedRows) !== 1) return false;
      await dequeue(id);
      return true;
    },
    list: (filter: F, viewer: Viewer, page: Pagination): Promise<Listed<Listed_>> =>
      rows.list(filter, spec.seenBy(viewer), [`${alias}.id`], page, select, spec.embeds),
  };
}

const REQUEST_COLUMNS = ['r.id', 'r.page_id', 'r.user_id', 'r.state', 'r.is_validate', 'r.created_at', 'r.updated_at'];
const INVITE_COLUMNS = [
  'i.id', 'i.target_type', 'i.target_id', 'i.user_id', 'i.user_target_id', 'i.state', 'i.is_validate', 'i.is_accepted',
  'i.created_at', 'i.updated_at',
];

/** Page access requests. Non-administrators see their own requests and those to the pages they created. */
export const accessRequestsRepo = (db: Kysely<Database>) =>
  waitingRepo<AccessRequestRow, AccessRequestListed, AccessRequestFilter>(db, {
    table: 'page_access_requests',
    alias: 'r',
    kind: 'page_access_request',
    page: 'page_id',
    user: 'user_id',
    columns: REQUEST_COLUMNS,
    dims: [
      { name: 'page_id', column: 'r.page_id' },
      { name: 'user_id', column: 'r.user_id' },
      { name: 'state', column: 'r.state', values: ACCESS_REQUEST_STATES },
      { name: 'owner', column: (f) => ownerOf('r.page_owner_id', f.page_id) },
    ],
    seenBy: accessRequestsSeenBy,
    embeds: (q, rows) => embedPage(embedUser(q, `${rows}.user_id`, 'user'), `${rows}.page_id`, 'page'),
  });

/** Invites (to pages only). Non-administrators see those they sent or received and those to pages they created. */
export const invitesRepo = (db: Kysely<Database>) =>
  waitingRepo<InviteRow, InviteListed, InviteFilter>(db, {
    table: 'invites',
    alias: 'i',
    kind: 'invite',
    page: 'target_id',
    user: 'user_target_id',
    columns: INVITE_COLUMNS,
    dims: [
      { name: 'target_id', column: 'i.target_id' },
      { name: 'user_id', column: 'i.user_id' },
      { name: 'user_target_id', column: 'i.user_target_id' },
      { name: 'state', column: 'i.state', values: INVITE_STATES },
      { name: 'owner', column: (f) => ownerOf('i.page_owner_id', f.target_id) },
    ],
    seenBy: invitesSeenBy,
    embeds: (q, rows) =>
      embedPage(embedUser(embedUser(q, `${rows}.user_id`, 'user'), `${rows}.user_target_id`, 'user_target'), `${rows}.target_id`, 'target'),
  });
