/**
 * The shared zod schema of every answer of the API, by method and path: the client checks each JSON answer
 * against it, so that a server answering something else is reported as such (an ApiError `invalid_response`)
 * rather than crashing a command further on. The same schemas describe the server's routes (`response:`),
 * and test/cli/responses.test.ts checks this table against the server's OpenAPI document, route by route.
 * Schemas load with the first call that needs them (zod is not in the path of `--help` or `--version`).
 */

interface Checker {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** A schema; `'none'` for an answer without a body (204); `'any'` for one that is JSON but has no schema (openapi.json). */
type Expected = Checker | 'none' | 'any';

/**
 * zod compiles a fast path for each object schema (with `new Function`) the first time it parses with it: worth
 * it on a server parsing millions of bodies, ~5–30 ms at the start of a command that parses a few answers.
 * Without it a page of 25 records still parses in about 0.1 ms. The client's process only: the server never
 * loads this module.
 */
let configured: Promise<void> | undefined;
const zodForTheClient = () =>
  (configured ??= import('zod').then(({ z }) => {
    z.config({ jitless: true });
  }));

const users = () => import('../shared/schemas/users.js');
const pages = () => import('../shared/schemas/pages.js');
const follows = () => import('../shared/schemas/follows.js');
const membership = () => import('../shared/schemas/membership.js');
const roles = () => import('../shared/schemas/roles.js');
const permissions = () => import('../shared/schemas/permissions.js');
const content = () => import('../shared/schemas/content.js');
const events = () => import('../shared/schemas/events.js');
const notifications = () => import('../shared/schemas/notifications.js');
const moderation = () => import('../shared/schemas/moderation.js');
const audit = () => import('../shared/schemas/audit.js');
const webhooks = () => import('../shared/schemas/webhooks.js');
const apiKeys = () => import('../shared/schemas/api-keys.js');
const reports = () => import('../shared/schemas/reports.js');
const removals = () => import('../shared/schemas/removals.js');

const none = async (): Promise<Expected> => 'none';
const any = async (): Promise<Expected> => 'any';

/** Fastify-style paths (`:id` is one segment), more specific ones first where two could match. */
export const RESPONSES: [Method, string, () => Promise<Expected>][] = [
  ['GET', '/me', async () => (await users()).MeSchema],
  ['POST', '/users', async () => (await users()).UserSchema],
  ['GET', '/users', async () => (await users()).UserListSchema],
  ['GET', '/users/nickname_availability', async () => (await users()).NicknameAvailabilitySchema],
  ['GET', '/users/:user_id', async () => (await users()).UserSchema],
  ['PUT', '/users/:user_id/role', async () => (await users()).UserSchema],
  ['GET', '/users/:user_id/stream', async () => (await content()).StatusListSchema],
  ['GET', '/users/:user_id/notifications', async () => (await notifications()).NotificationListSchema],
  ['PUT', '/users/:user_id/set_notifications_seen', async () => (await notifications()).MarkedSeenSchema],
  ['GET', '/users/:user_id/permissions', async () => (await permissions()).PermissionsSchema],
  ['GET', '/permissions', async () => (await permissions()).PermissionsSchema],
  ['POST', '/page_configurations', async () => (await pages()).PageConfigurationSchema],
  ['GET', '/page_configurations', async () => (await pages()).PageConfigurationListSchema],
  ['GET', '/page_configurations/:id', async () => (await pages()).PageConfigurationSchema],
  ['POST', '/pages', async () => (await pages()).PageSchema],
  ['GET', '/pages', async () => (await pages()).PageListSchema],
  ['GET', '/pages/:page_id', async () => (await pages()).PageSchema],
  ['GET', '/pages/:page_id/page_access_requests', async () => (await membership()).AccessRequestListSchema],
  ['GET', '/pages/:page_id/invites', async () => (await membership()).InviteListSchema],
  ['POST', '/follows', async () => (await follows()).FollowSchema],
  ['GET', '/follows', async () => (await follows()).FollowListSchema],
  ['GET', '/follows/:follow_id', async () => (await follows()).FollowSchema],
  ['DELETE', '/follows/:follow_id', none],
  ['POST', '/page_access_requests', async () => (await membership()).AccessRequestSchema],
  ['GET', '/page_access_requests', async () => (await membership()).AccessRequestListSchema],
  ['PUT', '/page_access_requests/:id/accept', async () => (await membership()).AccessRequestSchema],
  ['PUT', '/page_access_requests/:id/refuse', none],
  ['POST', '/invites', async () => (await membership()).InviteCreationSchema],
  ['GET', '/invites', async () => (await membership()).InviteListSchema],
  ['GET', '/invites/:id', async () => (await membership()).InviteSchema],
  ['PUT', '/invites/:id/accept', async () => (await membership()).InviteSchema],
  ['PUT', '/invites/:id/refuse', async () => (await membership()).InviteSchema],
  ['DELETE', '/invites/:id', none],
  ['GET', '/permission_sets', async () => (await roles()).PermissionSetListSchema],
  ['POST', '/permission_sets', async () => (await roles()).PermissionSetSchema],
  ['GET', '/permission_sets/:id', async () => (await roles()).PermissionSetSchema],
  ['PUT', '/permission_sets/:id', async () => (await roles()).PermissionSetSchema],
  ['DELETE', '/permission_sets/:id', none],
  ['POST', '/statuses', async () => (await content()).StatusSchema],
  ['GET', '/statuses/:status_id', async () => (await content()).StatusSchema],
  ['GET', '/statuses/:status_id/comments', async () => (await content()).CommentListSchema],
  ['POST', '/comments', async () => (await content()).CommentSchema],
  ['POST', '/likes', async () => (await content()).LikeSchema],
  ['GET', '/statuses/:status_id/likes', async () => (await content()).LikeListSchema],
  ['GET', '/comments/:comment_id/likes', async () => (await content()).LikeListSchema],
  ['GET', '/likes/:like_id', async () => (await content()).LikeSchema],
  ['GET', '/statuses', async () => (await content()).StatusListSchema],
  ['DELETE', '/statuses/:status_id', none],
  ['GET', '/comments/:comment_id', async () => (await content()).CommentSchema],
  ['DELETE', '/comments/:comment_id', none],
  ['DELETE', '/likes/:like_id', none],
  ['GET', '/removed_content', async () => (await removals()).RemovedContentListSchema],
  ['PUT', '/users/:user_id/suspension', async () => (await users()).UserSchema],
  ['DELETE', '/users/:user_id/suspension', async () => (await users()).UserSchema],
  ['POST', '/reports', async () => (await reports()).ReportSchema],
  ['GET', '/reports', async () => (await reports()).ReportListSchema],
  ['GET', '/reports/:id', async () => (await reports()).ReportSchema],
  ['PUT', '/reports/:id/resolve', async () => (await reports()).ReportSchema],
  ['PUT', '/reports/:id/dismiss', async () => (await reports()).ReportSchema],
  ['POST', '/events', async () => (await events()).EventSchema],
  ['GET', '/events', async () => (await events()).EventListSchema],
  ['GET', '/events/:event_id', async () => (await events()).EventSchema],
  ['PUT', '/events/:event_id/attendance', async () => (await events()).AttendanceResultSchema],
  ['GET', '/events/:event_id/attendees', async () => (await events()).AttendanceListSchema],
  ['GET', '/moderation_queue', async () => (await moderation()).ModerationQueueSchema],
  ['GET', '/audit_log', async () => (await audit()).AuditLogSchema],
  ['POST', '/webhooks', async () => (await webhooks()).WebhookSchema],
  ['GET', '/webhooks', async () => (await webhooks()).WebhookListSchema],
  ['GET', '/webhooks/:id', async () => (await webhooks()).WebhookSchema],
  ['DELETE', '/webhooks/:id', none],
  ['GET', '/webhooks/:id/deliveries', async () => (await webhooks()).DeliveryListSchema],
  ['POST', '/webhook_deliveries/:id/redeliver', async () => (await webhooks()).DeliverySchema],
  ['GET', '/api_keys', async () => (await apiKeys()).ApiKeyListSchema],
  ['DELETE', '/api_keys/:id', none],
  ['GET', '/openapi.json', any],
];

const patterns = RESPONSES.map(([method, path, load]) => ({
  method,
  pattern: new RegExp(`^${path.replace(/:[a-z_]+/g, '[^/]+')}$`),
  load,
}));

/** What the answer to `method path` (the API's path, without its prefix or query) must be; undefined for a route the table does not know. */
export function expectedAnswer(method: Method, path: string): Promise<Expected> | undefined {
  const route = patterns.find((p) => p.method === method && p.pattern.test(path));
  return route && zodForTheClient().then(route.load);
}

/** The first few ways a value differs from its schema, as one line: `items.0.id: Invalid input: expected string`. */
export function mismatch(checker: Checker, value: unknown): string | undefined {
  const result = checker.safeParse(value);
  if (result.success) return undefined;
  const issues = result.error.issues;
  const shown = issues.slice(0, 3).map((issue) => `${issue.path.map(String).join('.') || '(the body)'}: ${issue.message}`);
  return shown.join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
}

/** The notification schema, for the records a live stream carries. */
export const notificationSchema = async (): Promise<Checker> => {
  await zodForTheClient();
  return (await notifications()).NotificationSchema;
};
