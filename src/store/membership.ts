import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { ACCESS_REQUEST_STATES, INVITE_STATES } from '../shared/schemas/membership.js';
import { fixed } from './dialect.js';
import { accessRequestsSeenBy, invitesSeenBy, type Viewer } from './visibility.js';
import type { Database } from './schema.js';
import { byId, counterKey, listAnyOf, matchingAnyOf, type Embeds, type Listed, type Selection } from './paging.js';
import { embedPage, type PageRow } from './pages.js';
import { embedUser, type UserWithRole } from './users.js';

/** The page's owner is the store's own (a trigger writes it): the domain neither writes nor reads it. */
export type AccessRequestRow = Omit<Selectable<Database['page_access_requests']>, 'page_owner_id'>;
export type InviteRow = Omit<Selectable<Database['invites']>, 'page_owner_id'>;
/** As their lists read them: with the users and the page they show. */
export type AccessRequestListed = AccessRequestRow & { user?: UserWithRole; page?: PageRow };
export type InviteListed = InviteRow & { user?: UserWithRole; user_target?: UserWithRole; target?: PageRow };

/** A waiting record joins the moderation queue with its page's creator (in the record's transaction). */
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

const REQUEST_COLUMNS = ['r.id', 'r.page_id', 'r.user_id', 'r.state', 'r.is_validate', 'r.created_at', 'r.updated_at'] as const;
const INVITE_COLUMNS = [
  'i.id', 'i.target_type', 'i.target_id', 'i.user_id', 'i.user_target_id', 'i.state', 'i.is_validate', 'i.is_accepted',
  'i.created_at', 'i.updated_at',
] as const;
const selectRequests: Selection = (q) => q.select(REQUEST_COLUMNS);
const selectInvites: Selection = (q) => q.select(INVITE_COLUMNS);
const withRequestRecords: Embeds = (q, rows) => embedPage(embedUser(q, `${rows}.user_id`, 'user'), `${rows}.page_id`, 'page');
const withInviteRecords: Embeds = (q, rows) =>
  embedPage(embedUser(embedUser(q, `${rows}.user_id`, 'user'), `${rows}.user_target_id`, 'user_target'), `${rows}.target_id`, 'target');

type RequestColumn = 'r.page_id' | 'r.user_id' | 'r.state' | 'r.page_owner_id' | Owner;
type InviteColumn = 'i.target_type' | 'i.target_id' | 'i.user_id' | 'i.user_target_id' | 'i.state' | 'i.page_owner_id' | Owner;
type Owner = RawBuilder<string>;

/**
 * Whose page a row is in: its copy of the creator, or with the page named, the creator looked up once. Tested on each
 * row, PostgreSQL misjudged it and read and sorted all of a popular page's requests rather than walk them.
 */
const ownerOf = <C extends string>(copy: C, page: string | undefined): C | Owner =>
  page === undefined ? copy : sql<string>`(select p.user_id from pages as p where p.id = ${page})`;

/** A filter as column = value conditions (a state as a literal, `fixed`: partial indexes name it). */
function requestConditions(f: AccessRequestFilter & { owner?: string }): [RequestColumn, Value][] {
  const pairs: [RequestColumn, Value | undefined][] = [
    ['r.page_id', f.page_id],
    ['r.user_id', f.user_id],
    ['r.state', f.state === undefined ? undefined : fixed<string>(f.state, ACCESS_REQUEST_STATES)],
    [ownerOf('r.page_owner_id', f.page_id), f.owner],
  ];
  return pairs.filter((p): p is [RequestColumn, Value] => p[1] !== undefined);
}

function inviteConditions(f: InviteFilter & { owner?: string }): [InviteColumn, Value][] {
  const pairs: [InviteColumn, Value | undefined][] = [
    // Pages are the only targets.
    ['i.target_type', f.target_type !== undefined && f.target_type !== 'Page' ? f.target_type : undefined],
    ['i.target_id', f.target_id],
    ['i.user_id', f.user_id],
    ['i.user_target_id', f.user_target_id],
    ['i.state', f.state === undefined ? undefined : fixed<string>(f.state, INVITE_STATES)],
    [ownerOf('i.page_owner_id', f.target_id), f.owner],
  ];
  return pairs.filter((p): p is [InviteColumn, Value] => p[1] !== undefined);
}
type Value = string | RawBuilder<string>;

/** Page access requests. Non-administrators see their own requests and those to the pages they created. */
export function accessRequestsRepo(db: Kysely<Database>) {
  const matching = (filter: AccessRequestFilter & { owner?: string }) =>
    requestConditions(filter).reduce((q, [column, value]) => q.where(column, '=', value), db.selectFrom('page_access_requests as r'));
  const key = (f: AccessRequestFilter & { owner?: string }) =>
    counterKey('page_access_requests', [f.page_id, f.user_id, f.state, f.owner]);
  return {
    /** Inserts a waiting request unless one is waiting (false): a race ends in one row without aborting the loser. */
    async insertWaiting(row: AccessRequestRow & { state: 'waiting' }): Promise<boolean> {
      const inserted = await db
        .insertInto('page_access_requests')
        .values(row)
        .onConflict((oc) => oc.columns(['page_id', 'user_id']).where('state', '=', sql.lit('waiting')).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return false;
      await enqueue(db, 'page_access_request', row.id, row.page_id, row.user_id, row.created_at);
      return true;
    },
    getById: byId(db, 'page_access_requests'),
    /** The request if the viewer may know of it (`accessRequestsSeenBy`, as the list). */
    getVisible(id: string, viewer: Viewer): Promise<AccessRequestRow | undefined> {
      return matchingAnyOf(matching({}).where('r.id', '=', id), accessRequestsSeenBy(viewer), requestConditions).select(REQUEST_COLUMNS).executeTakeFirst();
    },
    getByIds(ids: string[]): Promise<AccessRequestRow[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db.selectFrom('page_access_requests').selectAll().where('id', 'in', [...new Set(ids)]).execute();
    },
    /** Accepts a waiting request; false when someone else settled it first. */
    async accept(id: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('page_access_requests')
        .set({ state: 'accepted', is_validate: 1, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', sql.lit('waiting'))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await dequeue(db, id);
      return true;
    },
    async deleteWaiting(id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('page_access_requests')
        .where('id', '=', id)
        .where('state', '=', sql.lit('waiting'))
        .executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) return false;
      await dequeue(db, id);
      return true;
    },
    async list(filter: AccessRequestFilter, viewer: Viewer, page: Pagination): Promise<Listed<AccessRequestListed>> {
      const walk = (f: AccessRequestFilter & { owner?: string }) => ({ query: matching(f), keys: ['r.id'] });
      return listAnyOf(db, filter, accessRequestsSeenBy(viewer), walk, key, page, selectRequests, withRequestRecords);
    },
  };
}

/** Invites. Non-administrators see the invites they sent or received and those to pages they created. */
export function invitesRepo(db: Kysely<Database>) {
  const matching = (filter: InviteFilter & { owner?: string }) =>
    inviteConditions(filter).reduce((q, [column, value]) => q.where(column, '=', value), db.selectFrom('invites as i'));
  const key = (f: InviteFilter & { owner?: string }) =>
    f.target_type !== undefined && f.target_type !== 'Page'
      ? counterKey('invites', ['none'])
      : counterKey('invites', [f.target_id, f.user_id, f.user_target_id, f.state, f.owner]);
  return {
    /** Inserts a waiting invite unless the user is invited to the page already (as `insertWaiting` of requests). */
    async insertWaiting(row: InviteRow & { state: 'waiting' }): Promise<boolean> {
      const inserted = await db
        .insertInto('invites')
        .values(row)
        .onConflict((oc) => oc.columns(['target_id', 'user_target_id']).where('state', '=', sql.lit('waiting')).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return false;
      await enqueue(db, 'invite', row.id, row.target_id, row.user_target_id, row.created_at);
      return true;
    },
    getById: byId(db, 'invites'),
    /** The invite if the viewer may know of it (`invitesSeenBy`, as the list). */
    getVisible(id: string, viewer: Viewer): Promise<InviteRow | undefined> {
      return matchingAnyOf(matching({}).where('i.id', '=', id), invitesSeenBy(viewer), inviteConditions).select(INVITE_COLUMNS).executeTakeFirst();
    },
    getByIds(ids: string[]): Promise<InviteRow[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db.selectFrom('invites').selectAll().where('id', 'in', [...new Set(ids)]).execute();
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
        .where('state', '=', sql.lit('waiting'))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await dequeue(db, id);
      return true;
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('invites').where('id', '=', id).execute();
      await dequeue(db, id);
    },
    async list(filter: InviteFilter, viewer: Viewer, page: Pagination): Promise<Listed<InviteListed>> {
      const walk = (f: InviteFilter & { owner?: string }) => ({ query: matching(f), keys: ['i.id'] });
      return listAnyOf(db, filter, invitesSeenBy(viewer), walk, key, page, selectInvites, withInviteRecords);
    },
  };
}
