import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { dialectOf } from './dialect.js';
import { inserter, counted, counterKey, kept, listPage, type Listed, type Selection } from './paging.js';
import type { Database } from './schema.js';

export type AuditEntryRow = Selectable<Database['audit_log']>;

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

/** The audit log, written in each administrative change's transaction and read newest first. */
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
    // SQLite would start a newest-first walk at this bound, not the page's key; `likely` makes it a test per entry.
    if (filter.until !== undefined)
      q = q.where(
        ordered && sqlite
          ? sql<boolean>`likely(${sql.ref('audit_log.created_at')} < ${filter.until})`
          : sql<boolean>`${sql.ref('audit_log.created_at')} < ${filter.until}`,
      );
    return q;
  };
  return {
    insert: inserter(db, 'audit_log'),
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
