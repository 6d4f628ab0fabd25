import { ErrorCode } from '../../shared/errors.js';
import { z } from 'zod';
import { createFollow, deleteFollow, getFollow, listFollows } from '../../domain/follows.js';
import { CreateFollowInput, FollowListSchema, FollowSchema, ListFollowsQuery } from '../../shared/schemas/follows.js';
import type { RouteContext } from '../context.js';

export function registerFollowRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Follows';
  routes.add(
    { method: 'POST', url: '/follows', operationId: 'create_follow', conflicts: [ErrorCode.alreadyFollowing, ErrorCode.userSuspended], tag, summary: 'Follow a page or a user', body: CreateFollowInput, response: FollowSchema },
    ({ body, caller }) => createFollow(deps, caller, body),
  );
  routes.add(
    { method: 'GET', url: '/follows', operationId: 'list_follows', tag, summary: 'List follows', query: ListFollowsQuery, response: FollowListSchema },
    ({ query, caller }) => listFollows(deps, caller, query),
  );
  const FollowParams = z.object({ follow_id: z.string() });
  routes.add(
    { method: 'GET', url: '/follows/:follow_id', operationId: 'get_follow', tag, summary: 'Get a follow (whoever sees it in the list)', params: FollowParams, response: FollowSchema },
    ({ params, caller }) => getFollow(deps, caller, params.follow_id),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/follows/:follow_id',
      operationId: 'delete_follow',
      tag,
      summary: 'Unfollow',
      params: FollowParams,
      status: 204,
    },
    async ({ params, caller }) => {
      await deleteFollow(deps, caller, params.follow_id);
      return undefined;
    },
  );
}
