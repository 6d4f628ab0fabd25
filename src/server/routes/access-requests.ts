import { ErrorCode } from '../../shared/errors.js';
import { IdParams, PageIdParams } from '../../shared/schemas/common.js';
import {
  acceptAccessRequest,
  createAccessRequest,
  listAccessRequests,
  refuseAccessRequest,
} from '../../domain/access-requests.js';
import {
  AccessRequestListSchema,
  AccessRequestSchema,
  CreateAccessRequestInput,
  ListAccessRequestsQuery,
  ListPageAccessRequestsQuery,
} from '../../shared/schemas/membership.js';
import type { RouteContext } from '../context.js';

export function registerAccessRequestRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Page access requests';
  routes.add(
    {
      method: 'POST',
      url: '/page_access_requests',
      operationId: 'create_page_access_request',
      conflicts: [ErrorCode.accessRequestPending, ErrorCode.alreadyMember],
      tag,
      summary: 'Ask to join a page',
      body: CreateAccessRequestInput,
      response: AccessRequestSchema,
    },
    ({ body, caller }) => createAccessRequest(deps, caller, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/page_access_requests',
      operationId: 'list_page_access_requests',
      tag,
      summary: 'List access requests (yours, and those to pages you administer)',
      query: ListAccessRequestsQuery,
      response: AccessRequestListSchema,
    },
    ({ query, caller }) => listAccessRequests(deps, caller, query),
  );
  routes.add(
    {
      method: 'GET',
      url: '/pages/:page_id/page_access_requests',
      operationId: 'list_page_access_requests_of_page',
      tag,
      summary: "List a page's access requests",
      params: PageIdParams,
      query: ListPageAccessRequestsQuery,
      response: AccessRequestListSchema,
    },
    ({ params, query, caller }) => listAccessRequests(deps, caller, { ...query, page_id: params.page_id }),
  );
  routes.add(
    {
      method: 'PUT',
      url: '/page_access_requests/:id/accept',
      operationId: 'accept_page_access_request',
      conflicts: [ErrorCode.alreadyAccepted, ErrorCode.userSuspended, ErrorCode.alreadyMember],
      tag,
      summary: 'Accept a waiting request (page administrators): the user follows the page',
      params: IdParams,
      response: AccessRequestSchema,
    },
    ({ params, caller }) => acceptAccessRequest(deps, caller, params.id),
  );
  routes.add(
    {
      method: 'PUT',
      url: '/page_access_requests/:id/refuse',
      operationId: 'refuse_page_access_request',
      conflicts: [ErrorCode.alreadyAccepted],
      tag,
      summary: 'Refuse a waiting request (page administrators): the request is deleted',
      params: IdParams,
      status: 204,
    },
    async ({ params, caller }) => {
      await refuseAccessRequest(deps, caller, params.id);
      return undefined;
    },
  );
}
