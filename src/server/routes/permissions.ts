import { permissionsOf } from '../../domain/permissions.js';
import { PermissionsQuery, PermissionsSchema } from '../../shared/schemas/permissions.js';
import { UserIdParams } from '../../shared/schemas/users.js';
import type { RouteContext } from '../context.js';

export function registerPermissionRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Permissions';
  routes.add(
    {
      method: 'GET',
      url: '/permissions',
      operationId: 'get_permissions',
      tag,
      summary: "A user's permissions; without user_id, those of a non-connected visitor",
      query: PermissionsQuery,
      response: PermissionsSchema,
    },
    ({ query }) => permissionsOf(deps, query.user_id),
  );
  routes.add(
    {
      method: 'GET',
      url: '/users/:user_id/permissions',
      operationId: 'get_user_permissions',
      tag,
      summary: "A user's permissions",
      params: UserIdParams,
      response: PermissionsSchema,
    },
    ({ params }) => permissionsOf(deps, params.user_id),
  );
}
