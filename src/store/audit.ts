import { sql, type Kysely, type Selectable } from 'kysely';
import type { Pagination } from '../shared/schemas/common.js';
import { dialectOf } from './dialect.js';
import { counted, counterKey, kept, listPage, type Listed } from './paging.js';
import { inserter } from './rows.js';
import type { Database } from './schema.js';

export type AuditEntryRow = Selectable<Database['audit_log']>;

/** `since` and `until`: ISO 8601 bounds, since inclusive, until exclusive. */
type AuditField = 'actor_id' | 'action' | 'target_type' | 'target_id' | 'since' | 'until';
export type AuditFilter = Partial<Record<AuditField, string>>;

/** The audit log, written in each administrative change's transaction and read newest first. */
export function auditLogRepo(db: Kysely<Database>) {
  const sqlite = dialectOf(db) === 'sqlite';
  /** `ordered`: for the list's walk, not its count (which resumes from no key). */
  const filtered = ({ since, until, ...equal }: AuditFilter, ordered = false) => {
    let q = db.selectFrom('audit_log').where((eb) => eb.and(equal));
    if (since !== undefined) q = q.where('audit_log.created_at', '>=', since);
    // SQLite would start a newest-first walk at this bound, not the page's key; `likely` makes it a test per entry.
    const before = sql<boolean>`${sql.ref('audit_log.created_at')} < ${until ?? null}`;
    if (until !== undefined) q = q.where(ordered && sqlite ? sql<boolean>`likely(${before})` : before);
    return q;
  };
  return {
    insert: inserter(db, 'audit_log'),
    async list(filter: AuditFilter, page: Pagination): Promise<Listed<AuditEntryRow>> {
      return listPage<AuditEntryRow>(
        db,
        [{ query: filtered(filter, true), keys: ['audit_log.created_at', 'audit_log.id'] }],
        (q) => q.selectAll('audit_log'),
        page,
        filter.target_id !== undefined || filter.since !== undefined || filter.until !== undefined
          ? counted(filtered(filter))
          : kept([counterKey('audit_log', [filter.actor_id, filter.action, filter.target_type])]),
        { desc: true },
      );
    },
  };
}
