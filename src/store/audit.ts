import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { dialectOf } from './dialect.js';
import { counted, counterKey, kept, listPage, type Listed, type Selection } from './paging.js';
import type { AuditLogTable, Database } from './schema.js';

export type AuditEntryRow = Selectable<AuditLogTable>;

export interface AuditFilter {
  actor_id?: string;
  action?: string;
  target_type?: string;
  target_id?: string;
  /** ISO 8601 bounds: since inclusive, until exclusive. */
  since?: string;
  until?: string;
}

const selectAuditLog: Selection = (q) => q.selectAll('audit_log');

/**
 * The audit log: written in the transaction of each administrative change, read newest first, paged like
 * every list (`listPage`); its total is kept by actor, action and type of target (`audit_log` counts), and counted
 * on an index for a target's few entries and a time window's.
 */
export function auditLogRepo(db: Kysely<Database>) {
  const sqlite = dialectOf(db) === 'sqlite';
  /** `ordered`: for the list's walk, not its count (which resumes from no key). */
  const filtered = (filter: AuditFilter, ordered = false) => {
    let q = db.selectFrom('audit_log');
    if (filter.actor_id !== undefined) q = q.where('audit_log.actor_id', '=', filter.actor_id);
    if (filter.action !== undefined) q = q.where('audit_log.action', '=', filter.action);
    if (filter.target_type !== undefined) q = q.where('audit_log.target_type', '=', filter.target_type);
    if (filter.target_id !== undefined) q = q.where('audit_log.target_id', '=', filter.target_id);
    if (filter.since !== undefined) q = q.where('audit_log.created_at', '>=', filter.since);
    // The walk on SQLite: SQLite takes one upper bound of a column for a walk newest first, and would take this one
    // over the key a page resumes from; `likely(…)` makes it a test of each entry instead (as events.ts's lower one).
    if (filter.until !== undefined)
      q = q.where(
        ordered && sqlite
          ? sql<boolean>`likely(${sql.ref('audit_log.created_at')} < ${filter.until})`
          : sql<boolean>`${sql.ref('audit_log.created_at')} < ${filter.until}`,
      );
    return q;
  };
  return {
    async insert(row: AuditEntryRow): Promise<void> {
      await db.insertInto('audit_log').values(row).execute();
    },
    async list(filter: AuditFilter, page: Pagination): Promise<Listed<AuditEntryRow>> {
      return listPage<AuditEntryRow>(
        db,
        [{ query: filtered(filter, true), keys: ['audit_log.created_at', 'audit_log.id'] }],
        selectAuditLog,
        page,
        filter.target_id !== undefined || filter.since !== undefined || filter.until !== undefined
          ? counted(filtered(filter))
          : kept([counterKey('audit_log', [filter.actor_id, filter.action, filter.target_type])]),
        true,
      );
    },
  };
}
