import { ErrorCode } from '../../shared/errors.js';
import { createComment, createLike, createStatus, getLike, getStatus, getStream, listComments, listLikes, listStatuses } from '../../domain/content.js';
import {
  CommentListSchema,
  CommentParams,
  CommentSchema,
  CreateCommentInput,
  CreateLikeInput,
  CreateStatusInput,
  LikeListSchema,
  LikeParams,
  LikeSchema,
  ListCommentsQuery,
  ListLikesQuery,
  ListStatusesQuery,
  StatusListSchema,
  StatusParams,
  StatusSchema,
  StreamQuery,
} from '../../shared/schemas/content.js';
import { UserIdParams } from '../../shared/schemas/users.js';
import type { RouteContext } from '../context.js';

export function registerContentRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Content';
  routes.add(
    {
      method: 'POST',
      url: '/statuses',
      operationId: 'create_status',
      tag,
      summary: "Post a status on your profile, in a page you are in, or in an event's conversation (statuses.create)",
      body: CreateStatusInput,
      response: StatusSchema,
    },
    ({ body, caller }) => createStatus(deps, caller, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/statuses',
      operationId: 'list_statuses',
      tag,
      summary: 'Statuses newest first (filters user_id, page_id, event_id), each visible to the caller as in the stream (statuses.index)',
      query: ListStatusesQuery,
      response: StatusListSchema,
    },
    ({ query, caller }) => listStatuses(deps, caller, query),
  );
  routes.add(
    { method: 'GET', url: '/statuses/:status_id', operationId: 'get_status', tag, summary: 'Get a status (statuses.show)', params: StatusParams, response: StatusSchema },
    ({ params, caller }) => getStatus(deps, caller, params.status_id),
  );
  routes.add(
    {
      method: 'GET',
      url: '/statuses/:status_id/comments',
      operationId: 'list_status_comments',
      tag,
      summary: 'The comments on a status, oldest first (statuses.index)',
      params: StatusParams,
      query: ListCommentsQuery,
      response: CommentListSchema,
    },
    ({ params, query, caller }) => listComments(deps, caller, params.status_id, query),
  );
  routes.add(
    { method: 'POST', url: '/comments', operationId: 'create_comment', tag, summary: 'Comment on a status (statuses.create)', body: CreateCommentInput, response: CommentSchema },
    ({ body, caller }) => createComment(deps, caller, body),
  );
  routes.add(
    {
      method: 'POST',
      url: '/likes',
      operationId: 'create_like',
      conflicts: [ErrorCode.alreadyLiked],
      tag,
      summary: 'Like a status or a comment (statuses.create; once per user, 409 already_liked after that)',
      body: CreateLikeInput,
      response: LikeSchema,
    },
    ({ body, caller }) => createLike(deps, caller, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/statuses/:status_id/likes',
      operationId: 'list_status_likes',
      tag,
      summary: "A status's likes, oldest first, with who liked (one user's with user_id; statuses.index)",
      params: StatusParams,
      query: ListLikesQuery,
      response: LikeListSchema,
    },
    ({ params, query, caller }) => listLikes(deps, caller, { type: 'Status', id: params.status_id }, query),
  );
  routes.add(
    {
      method: 'GET',
      url: '/comments/:comment_id/likes',
      operationId: 'list_comment_likes',
      tag,
      summary: "A comment's likes, oldest first, with who liked (one user's with user_id; statuses.index)",
      params: CommentParams,
      query: ListLikesQuery,
      response: LikeListSchema,
    },
    ({ params, query, caller }) => listLikes(deps, caller, { type: 'Comment', id: params.comment_id }, query),
  );
  routes.add(
    { method: 'GET', url: '/likes/:like_id', operationId: 'get_like', tag, summary: 'Get a like (whoever reads what was liked; statuses.show)', params: LikeParams, response: LikeSchema },
    ({ params, caller }) => getLike(deps, caller, params.like_id),
  );
  routes.add(
    {
      method: 'GET',
      url: '/users/:user_id/stream',
      operationId: 'get_user_stream',
      tag,
      summary: 'The statuses of the users, pages and events a user follows, newest first (statuses.index)',
      params: UserIdParams,
      query: StreamQuery,
      response: StatusListSchema,
    },
    ({ params, query, caller }) => getStream(deps, caller, params.user_id, query),
  );
}
