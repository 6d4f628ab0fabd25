import { ErrorCode } from '../../shared/errors.js';
import { liftSuspension, suspendUser } from '../../domain/suspensions.js';
import { SuspendUserInput } from '../../shared/schemas/suspensions.js';
import { UserIdParams, UserSchema } from '../../shared/schemas/users.js';
import type { RouteContext } from '../context.js';

export function registerSuspensionRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Users';
  routes.add(
    {
      method: 'PUT',
      url: '/users/:user_id/suspension',
      operationId: 'suspend_user',
      conflicts: [ErrorCode.cannotSuspendSelf, ErrorCode.lastAdmin],
      tag,
      summary: 'Suspend a user (Admins): reason, optional until; their keys are refused and their content hidden',
      params: UserIdParams,
      body: SuspendUserInput,
      response: UserSchema,
    },
    ({ params, body, caller }) => suspendUser(deps, caller, params.user_id, body),
  );
  routes.add(
    {
      method: 'DELETE',
      url: '/users/:user_id/suspension',
      operationId: 'lift_suspension',
      tag,
      summary: "Lift a user's suspension (Admins)",
      params: UserIdParams,
      response: UserSchema,
      headers: ['Suspension-Lifted'],
    },
    async ({ params, caller, reply }) => {
      const { user, lifted } = await liftSuspension(deps, caller, params.user_id);
      reply.header('suspension-lifted', String(lifted));
      return user;
    },
  );
}
