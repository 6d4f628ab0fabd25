import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { dialectOf } from './dialect.js';
import type { ReportTable } from './moderation-tables.js';
import { counted, listPage, type Embeds, type Listed, type Selection } from './paging.js';
import { embedUser, type UserWithRole } from './users.js';
import type { Database } from './schema.js';
import { reportVisibleTo, type Viewer } from './visibility.js';

/** The page's creator is the store's own (written from the page on insert): the domain neither writes nor reads it. */
export type ReportRow = Omit<Selectable<ReportTable>, 'page_owner_id'>;
/** A report as its list reads it: with the user it reports, or the reported content's author (`target_user_id`). */
export type ReportListed = ReportRow & { target?: UserWithRole };
const withReportedUser: Embeds = (q, rows) => embedUser(q, `${rows}.target_user_id`, 'target');

export interface ReportFilter {
  state?: string;
  target_type?: string;
  target_id?: string;
  user_id?: string;
}

const selectReports: Selection = (q) => q.selectAll('r');

/** Users' reports of statuses, comments and users (migration 0030-moderation). */
export function reportsRepo(db: Kysely<Database>) {
  const visible = (viewer: Viewer) => db.selectFrom('reports as r').where((eb) => reportVisibleTo(eb, viewer));
  return {
    /**
     * Holds the reported status or comment until the report's transaction ends: a removal by another process waits
     * for the report, then settles it with the rest (PostgreSQL, `FOR SHARE`; SQLite's one writer already
     * serializes them). False when the content went meanwhile.
     */
    async holdTarget(type: 'Status' | 'Comment', id: string): Promise<boolean> {
      if (dialectOf(db) !== 'postgres') return true;
      const table = type === 'Status' ? 'statuses' : 'comments';
      return (await db.selectFrom(table).select('id').where('id', '=', id).forShare().executeTakeFirst()) !== undefined;
    },
    /** Refused by the unique index when the reporter already has an open report on the target, even in a race. */
    async insert(row: ReportRow): Promise<void> {
      const owner = row.page_id ? db.selectFrom('pages').select('pages.user_id').where('pages.id', '=', row.page_id) : null;
      await db.insertInto('reports').values({ ...row, page_owner_id: owner }).execute();
    },
    async visibleTo(viewer: Viewer, id: string): Promise<ReportRow | undefined> {
      return visible(viewer).selectAll('r').where('r.id', '=', id).executeTakeFirst();
    },
    /** Reports oldest first. */
    async list(viewer: Viewer, filter: ReportFilter, page: Pagination): Promise<Listed<ReportListed>> {
      let query = visible(viewer);
      if (filter.state !== undefined) query = query.where('r.state', '=', filter.state);
      if (filter.target_type !== undefined) query = query.where('r.target_type', '=', filter.target_type);
      if (filter.target_id !== undefined) query = query.where('r.target_id', '=', filter.target_id);
      if (filter.user_id !== undefined) query = query.where('r.user_id', '=', filter.user_id);
      return listPage<ReportListed>(db, [{ query, keys: ['r.id'] }], selectReports, page, counted(query), false, withReportedUser);
    },
    /**
     * Settles every open report on the targets at once (a removed status's with its comments'), and answers those
     * settled, oldest first: none when another settle came first (the rows' locks, or SQLite's one writer, make the
     * second find no open report).
     */
    async settle(
      targets: { type: string; id: string }[],
      change: { state: string; resolution: string | null; resolved_by: string; updated_at: string },
    ): Promise<ReportRow[]> {
      if (targets.length === 0) return [];
      // The rows as the update left them (a report written between a read and the update would be settled untold).
      const settled = await db
        .updateTable('reports')
        .set(change)
        .where('state', '=', 'open')
        .where((eb) => eb.or(targets.map((t) => eb.and([eb('target_type', '=', t.type), eb('target_id', '=', t.id)]))))
        .returningAll()
        .execute();
      return settled.map(({ page_owner_id: _owner, ...row }) => row).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
  };
}
