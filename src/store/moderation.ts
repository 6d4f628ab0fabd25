import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { settledBy, type Viewer } from './visibility.js';
import { counted, listPage, type Embeds, type Listed, type Selection } from './paging.js';
import { embedPage, type PageRow } from './pages.js';
import { embedUser, type UserWithRole } from './users.js';
import type { Database } from './schema.js';

/** The columns every item has (a waiting record's or a report's); and those of a report alone (null for the others). */
const SHARED = ['id', 'page_id', 'user_id', 'created_at'] as const;
const REPORT_ONLY = ['target_type', 'target_id', 'target_user_id', 'excerpt', 'reason'] as const;
/**
 * A waiting access request or invite, or a target's open reports (its first report's columns, `reports` how many);
 * the report columns are null for the others.
 */
export type ModerationItemRow = Pick<Selectable<Database['reports']>, (typeof SHARED)[number]> & {
  [C in (typeof REPORT_ONLY)[number]]: Database['reports'][C] | null;
} & { kind: string; reports: number | string | null };

/** An item as the queue reads it: with its user, its page, and a report's target's author or user. */
export type ModerationItemListed = ModerationItemRow & { user?: UserWithRole; target_user?: UserWithRole; page?: PageRow };
const withItemRecords: Embeds = (q, rows) =>
  embedPage(embedUser(embedUser(q, `${rows}.user_id`, 'user'), `${rows}.target_user_id`, 'target_user'), `${rows}.page_id`, 'page');

const selectWaiting: Selection = (q) =>
  q.select([
    'moderation_queue.kind',
    ...SHARED.map((column) => `moderation_queue.${column}` as const),
    ...REPORT_ONLY.map((column) => sql<null>`null`.as(column)),
    // Typed as the other walk's count: the walks are one UNION ALL, and PostgreSQL matches the columns' types.
    sql<null>`cast(null as bigint)`.as('reports'),
  ]);

// A literal, so that SQLite and PostgreSQL see the partial indexes' condition (migration 0031) in the query.
const OPEN = sql.lit('open');

/** The open reports (`reports as o`) on the same target as the report `r`. */
const openOnTarget = (eb: ExpressionBuilder<Database & { r: Database['reports'] }, 'r'>) =>
  eb.selectFrom('reports as o').whereRef('o.target_type', '=', 'r.target_type').whereRef('o.target_id', '=', 'r.target_id').where('o.state', '=', OPEN);

const selectReportGroups: Selection = (q) =>
  q.select((eb) => [
    sql.lit('report').as('kind'),
    ...SHARED.map((column) => `r.${column}` as const),
    ...REPORT_ONLY.map((column) => `r.${column}` as const),
    openOnTarget(eb).select((c) => c.fn.countAll().as('n')).as('reports'),
  ]);

/**
 * A viewer's moderation queue, oldest first: waiting requests and invites of the pages they administer (rows
 * membership.ts keeps with the records), and open reports on content in them (Admins: all), one item a target. Its
 * total is counted: only what waits.
 */
export function moderationQueueRepo(db: Kysely<Database>) {
  const administered = (viewer: Viewer) => settledBy(viewer, 'moderation_queue.page_owner_id', db.selectFrom('moderation_queue'));
  const reportGroups = (viewer: Viewer) =>
    // One item a target: its first open report.
    settledBy(viewer, 'r.page_owner_id', db.selectFrom('reports as r').where('r.state', '=', OPEN)).where((eb) =>
      eb.not(eb.exists(openOnTarget(eb).select('o.id').where(sql<boolean>`(o.created_at, o.id) < (r.created_at, r.id)`))),
    );
  return {
    async list(viewer: Viewer, page: Pagination): Promise<Listed<ModerationItemListed>> {
      const total = sql<number>`(${counted(administered(viewer))} + ${counted(reportGroups(viewer))})`;
      return listPage<ModerationItemListed>(
        db,
        [
          { query: administered(viewer), keys: ['moderation_queue.created_at', 'moderation_queue.id'], select: selectWaiting },
          { query: reportGroups(viewer), keys: ['r.created_at', 'r.id'], select: selectReportGroups },
        ],
        selectWaiting,
        page,
        total,
        { embeds: withItemRecords },
      );
    },
  };
}
