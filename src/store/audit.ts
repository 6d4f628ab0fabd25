import { sql, type Kysely, type Selectable } from 'kysely';
import type { TimeCursor, Slice } from './moderation.js';
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

/** The audit log: written in the transaction of each administrative change, read newest first. */
export function auditLogRepo(db: Kysely<Database>) {
  const filtered = (filter: AuditFilter) => {
    let q = db.selectFrom('audit_log');
    if (filter.actor_id !== undefined) q = q.where('actor_id', '=', filter.actor_id);
    if (filter.action !== undefined) q = q.where('action', '=', filter.action);
    if (filter.target_type !== undefined) q = q.where('target_type', '=', filter.target_type);
    if (filter.target_id !== undefined) q = q.where('target_id', '=', filter.target_id);
    if (filter.since !== undefined) q = q.where('created_at', '>=', filter.since);
    if (filter.until !== undefined) q = q.where('created_at', '<', filter.until);
    return q;
  };
  return {
    async insert(row: AuditEntryRow): Promise<void> {
      await db.insertInto('audit_log').values(row).execute();
    },
    /** One page, newest first; `after` is the last entry already seen. */
    page(filter: AuditFilter, slice: Slice) {
      let q = filtered(filter).selectAll();
      const after: TimeCursor | undefined = slice.after;
      if (after) q = q.where(sql<boolean>`(created_at, id) < (${after.created_at}, ${after.id})`);
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(slice.per_page).offset(slice.offset);
    },
    async list(filter: AuditFilter, slice: Slice): Promise<{ rows: AuditEntryRow[]; total: number }> {
      const [rows, counted] = await Promise.all([
        this.page(filter, slice).execute(),
        filtered(filter)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(counted.n) };
    },
  };
}
export type AuditLogRepo = ReturnType<typeof auditLogRepo>;
