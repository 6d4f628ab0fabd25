import { IdParams } from '../../shared/schemas/common.js';
import { listApiKeys, revokeApiKey } from '../../domain/api-keys.js';
import { requireAdmin } from '../../domain/permissions.js';
import { ApiKeyListSchema, ListApiKeysQuery } from '../../shared/schemas/api-keys.js';
import type { RouteContext } from '../context.js';

export function registerApiKeyRoutes({ routes, deps }: RouteContext): void {
  const tag = 'API keys';
  routes.add(
    {
      method: 'GET',
      url: '/api_keys',
      operationId: 'list_api_keys',
      tag,
      summary: 'List API key pairs, never a secret (Admins)',
      query: ListApiKeysQuery,
      response: ApiKeyListSchema,
    },
    async ({ query, caller }) => {
      requireAdmin(caller, 'list API keys');
      return listApiKeys(deps, query);
    },
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/api_keys/:id',
      operationId: 'revoke_api_key',
      tag,
      summary: 'Revoke an API key pair (Admins): refused from the next request by every server on the store',
      params: IdParams,
      status: 204,
    },
    async ({ params, caller }) => {
      requireAdmin(caller, 'revoke API keys');
      await revokeApiKey(deps, params.id, caller);
      return undefined;
    },
  );
}
