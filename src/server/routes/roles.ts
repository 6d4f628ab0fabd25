import { ErrorCode } from '../../shared/errors.js';
import { IdParams } from '../../shared/schemas/common.js';
import {
  createPermissionSet,
  deletePermissionSet,
  getPermissionSet,
  listPermissionSets,
  setUserRole,
  updatePermissionSet,
} from '../../domain/roles.js';
import {
  CreatePermissionSetInput,
  ListPermissionSetsQuery,
  PermissionSetListSchema,
  PermissionSetSchema,
  SetUserRoleInput,
  UpdatePermissionSetInput,
} from '../../shared/schemas/roles.js';
import { UserIdParams, UserSchema } from '../../shared/schemas/users.js';
import type { RouteContext } from '../context.js';

export function registerRoleRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Roles';
  routes.add(
    {
      method: 'GET',
      url: '/permission_sets',
      operationId: 'list_permission_sets',
      tag,
      summary: 'List permission sets (roles)',
      query: ListPermissionSetsQuery,
      response: PermissionSetListSchema,
    },
    ({ query }) => listPermissionSets(deps, query),
  );
  routes.add(
    {
      method: 'POST',
      url: '/permission_sets',
      operationId: 'create_permission_set',
      conflicts: [ErrorCode.conflict],
      tag,
      summary: 'Create a permission set (users.add_roles); actions left out are false',
      body: CreatePermissionSetInput,
      response: PermissionSetSchema,
    },
    ({ body, caller }) => createPermissionSet(deps, caller, body),
  );
  routes.add(
    { method: 'GET', url: '/permission_sets/:id', operationId: 'get_permission_set', tag, summary: 'Get a permission set', params: IdParams, response: PermissionSetSchema },
    ({ params }) => getPermissionSet(deps, params.id),
  );
  routes.add(
    {
      method: 'PUT',
      url: '/permission_sets/:id',
      operationId: 'update_permission_set',
      conflicts: [ErrorCode.conflict],
      tag,
      summary: 'Update a permission set (users.edit_roles); actions left out keep their value',
      params: IdParams,
      body: UpdatePermissionSetInput,
      response: PermissionSetSchema,
    },
    ({ params, body, caller }) => updatePermissionSet(deps, caller, params.id, body),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/permission_sets/:id',
      operationId: 'delete_permission_set',
      conflicts: [ErrorCode.permissionSetInUse, ErrorCode.defaultPermissionSet],
      tag,
      summary: 'Delete a permission set nobody has (users.destroy_roles); the defaults stay',
      params: IdParams,
      status: 204,
    },
    async ({ params, caller }) => {
      await deletePermissionSet(deps, caller, params.id);
      return undefined;
    },
  );
  routes.add(
    {
      method: 'PUT',
      url: '/users/:user_id/role',
      operationId: 'set_user_role',
      conflicts: [ErrorCode.lastAdmin],
      tag,
      summary: "Change a user's role (Admins)",
      params: UserIdParams,
      body: SetUserRoleInput,
      response: UserSchema,
    },
    ({ params, body, caller }) => setUserRole(deps, caller, params.user_id, body),
  );
}
