import { z } from 'zod';
import { documented, Id, IsoDateOrTime, listOf, PaginationQuery, queryEnum, queryText, Timestamp } from './common.js';
import { exampleAuditEntry } from './examples.js';

/** Every administrative act the log records, as `<resource>.<verb>` (docs/api.md, "Resources"). */
export const AUDIT_ACTIONS = [
  'page_access_request.accept',
  'page_access_request.refuse',
  'invite.accept',
  'invite.refuse',
  'invite.withdraw',
  'permission_set.create',
  'permission_set.update',
  'permission_set.delete',
  'user.role_change',
  'user.create',
  'webhook.create',
  'webhook.delete',
  'webhook_delivery.redeliver',
  'api_key.create',
  'api_key.revoke',
  'status.remove',
  'comment.remove',
  'like.remove',
  'user.suspend',
  'user.unsuspend',
  'report.resolve',
  'report.dismiss',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The kind of record an action is on: its resource, the part before the dot (`user.suspend` → `user`). */
export const targetTypeOf = (action: AuditAction) => action.slice(0, action.indexOf('.'));

/** Every `target_type` an entry may have, in the order of the actions. */
export const AUDIT_TARGET_TYPES = [...new Set(AUDIT_ACTIONS.map(targetTypeOf))] as [string, ...string[]];

/** What the document shows of a bound: a day or a date-time, each in its JSON Schema format. */
const documentedBound = z
  .union([z.string().meta({ format: 'date-time' }), z.string().meta({ format: 'date' })])
  .meta({ examples: ['2026-11-01T10:00:00Z'] });

/**
 * A bound of the log's window: the date or time a suspension's end takes (`IsoDateOrTime`), shown in the document as
 * a day or a date-time (a copy of the shared schema, so that only this one is shown so).
 */
const isoBound = () => documented(IsoDateOrTime.clone(), documentedBound).optional();

export const AuditLogQuery = PaginationQuery.extend({
  actor_id: queryText,
  action: queryEnum('action', AUDIT_ACTIONS),
  target_type: queryEnum('target_type', AUDIT_TARGET_TYPES),
  target_id: queryText,
  since: isoBound().describe('Entries at or after this time'),
  until: isoBound().describe('Entries before this time'),
});
export type AuditLogQuery = z.output<typeof AuditLogQuery>;

export const AuditEntrySchema = z.object({
  id: Id,
  created_at: Timestamp,
  actor_id: Id.nullable().describe('Who acted; null for acts done offline on the store (agora admin create-key)'),
  action: z.string().describe(`One of: ${AUDIT_ACTIONS.join(', ')}`),
  target_type: z.string().describe(`The kind of record acted on, the resource of the action: one of ${AUDIT_TARGET_TYPES.join(', ')}`),
  target_id: Id,
  summary: z.string(),
  request_id: z.string().nullable().describe('The X-Request-Id of the request that made the change'),
}).meta({ id: 'AuditEntry', examples: [exampleAuditEntry] });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
export const AuditLogSchema = listOf(AuditEntrySchema);
