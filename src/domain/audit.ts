import { targetTypeOf, type AuditAction, type AuditEntry, type AuditLogQuery } from '../shared/schemas/audit.js';
import { clip } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listResult, type ListResult } from '../shared/schemas/common.js';
import type { Store } from '../store/store.js';
import type { Caller, Deps } from './context.js';
import { requireAdmin } from './permissions.js';

export interface AuditFact {
  action: AuditAction;
  /** The record acted on, of the action's resource (`targetTypeOf`). */
  target_id: string;
  /** One line a person reads: "accepted ada's request to join Book Circle". */
  summary: string;
}

/** Control characters (a newline in a name) would break the one line; long names are cut. */
const oneLine = (text: string) => clip(text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' '), 500);

/**
 * Writes the audit entry (or entries, in one statement) of an administrative change. Call it with the change's
 * transaction, so that the entry exists exactly when the change does. `caller` is who acted (with the request's
 * id); null for an act done offline, straight on the store (`agora admin create-key`).
 */
export async function recordAudit(tx: Store, now: string, caller: Caller | null, facts: AuditFact | AuditFact[]): Promise<void> {
  await tx.auditLog.insert(
    [facts].flat().map((fact) => ({
      id: newId(),
      created_at: now,
      actor_id: caller?.user.id ?? null,
      action: fact.action,
      target_type: targetTypeOf(fact.action),
      target_id: fact.target_id,
      summary: oneLine(fact.summary),
      request_id: caller?.requestId ?? null,
    })),
  );
}

/** The log, newest first (Admins only). */
export async function listAuditLog(deps: Deps, caller: Caller, query: AuditLogQuery): Promise<ListResult<AuditEntry>> {
  requireAdmin(caller, 'read the audit log');
  const { since, until, actor_id, action, target_type, target_id } = query;
  const listed = await deps.store.auditLog.list({ since, until, actor_id, action, target_type, target_id }, query);
  return listResult(listed.rows, listed);
}
