import { AppError, ErrorCode } from '../../shared/errors.js';
import { deleteLike, getComment, listRemovedContent, removeComment, removeStatus } from '../../domain/removals.js';
import { CommentParams, CommentSchema, LikeParams, StatusParams } from '../../shared/schemas/content.js';
import { ListRemovedContentQuery, RemovedContentListSchema, RemoveContentInput, RemoveContentQuery } from '../../shared/schemas/removals.js';
import type { RouteContext } from '../context.js';

export function registerRemovalRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Content';
  routes.add(
    {
      method: 'GET',
      url: '/removed_content',
      operationId: 'list_removed_content',
      tag: 'Moderation',
      summary: 'Removed statuses and comments, newest removal first, with who removed them and why (Admins only)',
      query: ListRemovedContentQuery,
      response: RemovedContentListSchema,
    },
    ({ query, caller }) => listRemovedContent(deps, caller, query),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/statuses/:status_id',
      operationId: 'remove_status',
      tag,
      // An Admin removing what is already removed (they still read it): said so, with when.
      conflicts: [ErrorCode.conflict],
      summary: "Remove a status with its comments and likes (its author with statuses.destroy, the page's administrators, Admins); optional reason",
      params: StatusParams,
      query: RemoveContentQuery,
      body: RemoveContentInput,
      status: 204,
    },
    async ({ params, query, body, caller }) => {
      await removeStatus(deps, caller, params.status_id, reasonOf(query, body));
      return undefined;
    },
  );
  routes.add(
    { method: 'GET', url: '/comments/:comment_id', operationId: 'get_comment', tag, summary: 'Get a comment (statuses.show)', params: CommentParams, response: CommentSchema },
    ({ params, caller }) => getComment(deps, caller, params.comment_id),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/comments/:comment_id',
      operationId: 'remove_comment',
      tag,
      // An Admin removing what is already removed (they still read it): said so, with when.
      conflicts: [ErrorCode.conflict],
      summary: "Remove a comment (its author with statuses.destroy, the page's administrators, Admins); optional reason",
      params: CommentParams,
      query: RemoveContentQuery,
      body: RemoveContentInput,
      status: 204,
    },
    async ({ params, query, body, caller }) => {
      await removeComment(deps, caller, params.comment_id, reasonOf(query, body));
      return undefined;
    },
  );
  routes.add(
    { method: 'DELETE', url: '/likes/:like_id', operationId: 'delete_like', tag, summary: 'Take a like back (the user who liked, with statuses.destroy; Admins)', params: LikeParams, status: 204 },
    async ({ params, caller }) => {
      await deleteLike(deps, caller, params.like_id);
      return undefined;
    },
  );
}

/** The removal's reason, from the query or the body: given in both, it is refused rather than one dropped. */
function reasonOf(query: RemoveContentInput, body: RemoveContentInput): string | null {
  if (query.reason !== undefined && body.reason !== undefined)
    throw new AppError(400, ErrorCode.invalidQuery, 'reason is given in both the query and the body: give it once');
  return body.reason ?? query.reason ?? null;
}
