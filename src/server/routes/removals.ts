import { z } from 'zod';
import { deleteLike, getComment, listStatuses, removeComment, removeStatus } from '../../domain/removals.js';
import { CommentSchema, StatusListSchema } from '../../shared/schemas/content.js';
import { ListStatusesQuery, RemoveContentInput, RemoveContentQuery } from '../../shared/schemas/removals.js';
import type { RouteContext } from '../context.js';

const IdParams = z.object({ id: z.string() });

export function registerRemovalRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Content';
  routes.add(
    {
      method: 'GET',
      url: '/statuses',
      operationId: 'list_statuses',
      tag,
      summary: 'Statuses newest first (filters user_id, page_id, event_id), each visible to the caller as in the stream',
      query: ListStatusesQuery,
      response: StatusListSchema,
    },
    ({ query, caller }) => listStatuses(deps, caller, query),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/statuses/:id',
      operationId: 'remove_status',
      tag,
      summary: "Remove a status with its comments and likes (its author, the page's administrators, Admins); optional reason",
      params: IdParams,
      query: RemoveContentQuery,
      body: RemoveContentInput,
      status: 204,
    },
    async ({ params, query, body, caller }) => {
      await removeStatus(deps, caller, params.id, body.reason ?? query.reason ?? null);
      return undefined;
    },
  );
  routes.add(
    { method: 'GET', url: '/comments/:id', operationId: 'get_comment', tag, summary: 'Get a comment', params: IdParams, response: CommentSchema },
    ({ params, caller }) => getComment(deps, caller, params.id),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/comments/:id',
      operationId: 'remove_comment',
      tag,
      summary: "Remove a comment (its author, the page's administrators, Admins); optional reason",
      params: IdParams,
      query: RemoveContentQuery,
      body: RemoveContentInput,
      status: 204,
    },
    async ({ params, query, body, caller }) => {
      await removeComment(deps, caller, params.id, body.reason ?? query.reason ?? null);
      return undefined;
    },
  );
  routes.add(
    { method: 'DELETE', url: '/likes/:id', operationId: 'delete_like', tag, summary: 'Take a like back (the user who liked)', params: IdParams, status: 204 },
    async ({ params, caller }) => {
      await deleteLike(deps, caller, params.id);
      return undefined;
    },
  );
}
