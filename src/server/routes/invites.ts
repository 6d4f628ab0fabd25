import { ErrorCode } from '../../shared/errors.js';
import { IdParams, PageIdParams } from '../../shared/schemas/common.js';
import {
  acceptInvite,
  createInvites,
  deleteInvite,
  getInvite,
  listInvites,
  refuseInvite,
} from '../../domain/invites.js';
import {
  CreateInvitesInput,
  InviteCreationSchema,
  InviteListSchema,
  InviteSchema,
  ListInvitesQuery,
  ListPageInvitesQuery,
} from '../../shared/schemas/membership.js';
import type { RouteContext } from '../context.js';

export function registerInviteRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Invites';
  routes.add(
    {
      method: 'POST',
      url: '/invites',
      operationId: 'create_invites',
      tag,
      summary: 'Invite users to a page: each invitee lands in success or in errors',
      body: CreateInvitesInput,
      response: InviteCreationSchema,
      status: 200,
    },
    ({ body, caller }) => createInvites(deps, caller, body),
  );
  routes.add(
    { method: 'GET', url: '/invites', operationId: 'list_invites', tag, summary: 'List invites', query: ListInvitesQuery, response: InviteListSchema },
    ({ query, caller }) => listInvites(deps, caller, query),
  );
  routes.add(
    {
      method: 'GET',
      url: '/pages/:page_id/invites',
      operationId: 'list_invites_of_page',
      tag,
      summary: "List a page's invites",
      params: PageIdParams,
      query: ListPageInvitesQuery,
      response: InviteListSchema,
    },
    ({ params, query, caller }) => listInvites(deps, caller, { ...query, target_type: 'Page', target_id: params.page_id }),
  );
  routes.add(
    { method: 'GET', url: '/invites/:id', operationId: 'get_invite', tag, summary: 'Get an invite', params: IdParams, response: InviteSchema },
    ({ params, caller }) => getInvite(deps, caller, params.id),
  );
  routes.add(
    {
      method: 'PUT',
      url: '/invites/:id/accept',
      operationId: 'accept_invite',
      conflicts: [ErrorCode.alreadyAccepted, ErrorCode.alreadyRefused, ErrorCode.userSuspended, ErrorCode.alreadyMember],
      tag,
      summary: 'Accept a waiting invite (page administrators): the invited user follows the page',
      params: IdParams,
      response: InviteSchema,
    },
    ({ params, caller }) => acceptInvite(deps, caller, params.id),
  );
  routes.add(
    {
      method: 'PUT',
      url: '/invites/:id/refuse',
      operationId: 'refuse_invite',
      conflicts: [ErrorCode.alreadyAccepted, ErrorCode.alreadyRefused],
      tag,
      summary: 'Refuse a waiting invite (page administrators): kept with is_validate false',
      params: IdParams,
      response: InviteSchema,
    },
    ({ params, caller }) => refuseInvite(deps, caller, params.id),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/invites/:id',
      operationId: 'delete_invite',
      conflicts: [ErrorCode.alreadyAccepted, ErrorCode.alreadyRefused],
      tag,
      summary: 'Withdraw a waiting invite (its sender or a page administrator); a settled one is kept (409)',
      params: IdParams,
      status: 204,
    },
    async ({ params, caller }) => {
      await deleteInvite(deps, caller, params.id);
      return undefined;
    },
  );
}
