import { z } from 'zod';
import { NEXT_PAGE } from '../../shared/schemas/common.js';
import {
  listNotifications,
  markNotificationsSeen,
  openNotificationStream,
  requireSelfOrAdmin,
} from '../../domain/notifications.js';
import { AppError, ErrorCode } from '../../shared/errors.js';
import { ID_PATTERN } from '../../shared/ids.js';
import { exampleNotification } from '../../shared/schemas/examples.js';
import { UserIdParams } from '../../shared/schemas/users.js';
import {
  ListNotificationsQuery,
  MarkedSeenSchema,
  MarkNotificationsSeenInput,
  NotificationListSchema,
} from '../../shared/schemas/notifications.js';
import type { RouteContext } from '../context.js';

const StreamQuery = z.object({
  last_event_id: z.string().optional().describe('For clients that cannot send the Last-Event-ID header'),
});

export function registerNotificationRoutes({ routes, deps, live, reauthenticate }: RouteContext): void {
  const tag = 'Notifications';
  routes.add(
    {
      method: 'GET',
      url: '/users/:user_id/notifications',
      operationId: 'list_notifications',
      tag,
      summary: "A user's notifications, newest first (a bare array; the total in X-Total-Count)",
      params: UserIdParams,
      query: ListNotificationsQuery,
      response: NotificationListSchema,
    },
    async ({ params, query, caller, reply }) => {
      const { records, total, next } = await listNotifications(deps, caller, params.user_id, query);
      reply.header('x-total-count', String(total));
      // A bare array still answers the Link header of every list.
      return Object.assign(records, { [NEXT_PAGE]: next });
    },
  );
  routes.add(
    {
      method: 'PUT',
      url: '/users/:user_id/set_notifications_seen',
      operationId: 'set_notifications_seen',
      tag,
      summary: 'Mark all unseen notifications seen, or only those of notification_ids',
      params: UserIdParams,
      body: MarkNotificationsSeenInput,
      response: MarkedSeenSchema,
    },
    ({ params, body, caller }) => markNotificationsSeen(deps, caller, params.user_id, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/users/:user_id/notifications/stream',
      operationId: 'stream_notifications',
      tag,
      summary: 'New notifications as they come (Server-Sent Events); Last-Event-ID resumes after that notification',
      params: UserIdParams,
      query: StreamQuery,
      stream: true,
      text: {
        'text/event-stream': {
          description:
            'Server-Sent Events: first `retry: 2000`; then each new notification as `event: notification`, `id:` its id and `data:` the Notification as JSON; a comment line every 15 s keeps proxies open. ' +
            'A stream its caller may no longer read (suspended, key revoked) ends with `event: ended` and `data:` the error (as a refused request gets it): do not reconnect',
          example: `retry: 2000\n\nevent: notification\nid: ${exampleNotification.id}\ndata: ${JSON.stringify(exampleNotification)}\n\n`,
        },
      },
    },
    async ({ params, query, caller, request, reply }) => {
      const header = request.headers['last-event-id'];
      const resume = (typeof header === 'string' ? header : query.last_event_id)?.trim();
      if (resume && !ID_PATTERN.test(resume))
        throw typeof header === 'string'
          ? new AppError(400, ErrorCode.invalidHeader, 'Last-Event-ID must be the id of a notification')
          : new AppError(400, ErrorCode.invalidQuery, 'last_event_id must be the id of a notification');
      const after = await openNotificationStream(deps, caller, params.user_id, resume || undefined, () => live.admit(params.user_id));
      // Before each delivery and at each keep-alive, the request's key is authenticated again and the caller checked as
      // at its start: a suspension, a revoked key or a role without the right ends the stream, saying why.
      const stillAllowed = async () => {
        try {
          requireSelfOrAdmin(await reauthenticate(request), params.user_id, 'read');
          return undefined;
        } catch (error) {
          // A refusal ends the stream for good (`ended`: do not reconnect); a check that could not be made (the
          // credential checks busy, 429; the server, 5xx) is none: thrown, it ends the stream and its client reconnects.
          if (error instanceof AppError && error.status !== 429 && error.status < 500) return error.toBody(request.id);
          throw error;
        }
      };
      // Counted before the answer starts: one too many is still answered 429 or 503 in the contract's shape.
      live.open(params.user_id, after, reply.raw, () => reply.hijack(), stillAllowed);
    },
  );
}
