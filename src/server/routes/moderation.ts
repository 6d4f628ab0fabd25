import { listAuditLog } from '../../domain/audit.js';
import { listModerationQueue } from '../../domain/moderation.js';
import { AuditLogQuery, AuditLogSchema } from '../../shared/schemas/audit.js';
import { ModerationQueueQuery, ModerationQueueSchema } from '../../shared/schemas/moderation.js';
import type { RouteContext } from '../context.js';

export function registerModerationRoutes({ routes, deps }: RouteContext): void {
  routes.add(
    {
      method: 'GET',
      url: '/moderation_queue',
      operationId: 'get_moderation_queue',
      tag: 'Moderation',
      summary:
        'The waiting access requests and invites of the pages the caller administers, oldest first (Link rel="next" with a cursor)',
      query: ModerationQueueQuery,
      response: ModerationQueueSchema,
    },
    ({ query, caller }) => listModerationQueue(deps, caller, query),
  );
  routes.add(
    {
      method: 'GET',
      url: '/audit_log',
      operationId: 'list_audit_log',
      tag: 'Moderation',
      summary: 'Every administrative act, newest first (Admins only; Link rel="next" with a cursor)',
      query: AuditLogQuery,
      response: AuditLogSchema,
    },
    ({ query, caller }) => listAuditLog(deps, caller, query),
  );
}
