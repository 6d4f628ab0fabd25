import type { Kysely, Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { REPORT_STATES, REPORT_TARGET_TYPES } from '../shared/report-kinds.js';
import { filteredBy, type Embeds, type Listed } from './paging.js';
import { embedUser, type UserWithRole } from './users.js';
import { chunks } from './rows.js';
import type { Database } from './schema.js';
import { reportsSeenBy, type Viewer } from './visibility.js';

/** The page's creator is the store's own (written from the page on insert): the domain neither writes nor reads it. */
export type ReportRow = Omit<Selectable<Database['reports']>, 'page_owner_id'>;
/** A report as its list reads it: with the user it reports, or the reported content's author (`target_user_id`). */
export type ReportListed = ReportRow & { target?: UserWithRole };
const withReportedUser: Embeds = (q, rows) => embedUser(q, `${rows}.target_user_id`, 'target');

export type ReportFilter = Partial<Pick<ReportRow, 'state' | 'target_type' | 'target_id' | 'user_id'>>;

/** The targets' ids by type, a statement's worth at a time (`chunks`): a removed status's comments may be thousands. */
function* idsByType(targets: readonly { type: string; id: string }[]): Generator<[string, string[]]> {
  for (const type of new Set(targets.map((target) => target.type))) {
    for (const ids of chunks(targets.filter((target) => target.type === type).map((target) => target.id))) yield [type, ids];
  }
}

/** Users' reports of statuses, comments and users (migration 0030-moderation). */
export function reportsRepo(db: Kysely<Database>) {
  // The kept counts' dimensions (migration 0039): the page's creator last, the other side of a Member's rule.
  const reports = filteredBy<ReportFilter & { owner?: string }>(db, 'reports as r', 'reports', [
    { name: 'state', column: 'r.state', values: REPORT_STATES },
    { name: 'target_type', column: 'r.target_type', values: REPORT_TARGET_TYPES },
    { name: 'target_id', column: 'r.target_id' },
    { name: 'user_id', column: 'r.user_id' },
    { name: 'owner', column: 'r.page_owner_id' },
  ]);
  return {
    /**
     * Reports, settled ones too, stop quoting removed content: their reporters and the page's administrators no longer
     * read it. The excerpt is then empty (shown as null).
     */
    async unquote(targets: { type: 'Status' | 'Comment'; id: string }[]): Promise<void> {
      for (const [type, ids] of idsByType(targets))
        await db.updateTable('reports').set({ excerpt: '' }).where('target_type', '=', type).where('target_id', 'in', ids).execute();
    },
    /** Refused by the unique index when the reporter already has an open report on the target, even in a race. */
    async insert(row: ReportRow): Promise<void> {
      const owner = row.page_id ? db.selectFrom('pages').select('pages.user_id').where('pages.id', '=', row.page_id) : null;
      await db.insertInto('reports').values({ ...row, page_owner_id: owner }).execute();
    },
    /** Whether a report matches (a reporter's open one on a target: the row of the unique `reports_open_once`). */
    has: (filter: ReportFilter) => reports.has(filter),
    /** The report if the viewer may know of it (`reportsSeenBy`, as the list). */
    async getVisible(id: string, viewer: Viewer): Promise<ReportRow | undefined> {
      return reports.visible(id, reportsSeenBy(viewer)).selectAll('r').executeTakeFirst() as Promise<ReportRow | undefined>;
    },
    /** Reports oldest first, as the moderation queue orders them. */
    list(viewer: Viewer, filter: ReportFilter, page: Pagination): Promise<Listed<ReportListed>> {
      return reports.list(filter, reportsSeenBy(viewer), ['r.created_at', 'r.id'], page, (q) => q.selectAll('r'), withReportedUser);
    },
    /** Settles every open report on the targets and answers those settled, oldest first: none if another settle won. */
    async settle(
      targets: { type: string; id: string }[],
      change: { state: string; resolution: string | null; resolved_by: string; updated_at: string },
    ): Promise<ReportRow[]> {
      const settled: ReportRow[] = [];
      for (const [type, ids] of idsByType(targets)) {
        // The rows as the update left them (a report written between a read and the update would be settled untold).
        const rows = await db
          .updateTable('reports')
          .set(change)
          .where('state', '=', 'open')
          .where('target_type', '=', type)
          .where('target_id', 'in', ids)
          .returningAll()
          .execute();
        settled.push(...rows.map(({ page_owner_id: _owner, ...row }) => row));
      }
      return settled.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
  };
}
