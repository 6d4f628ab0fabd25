import { ErrorCode } from '../../shared/errors.js';
import { Readable } from 'node:stream';
import { createUser, exportUsers, getUser, isNicknameAvailable, listUsers } from '../../domain/users.js';
import {
  CreateUserInput,
  EXPORT_MEDIA,
  ExportUsersQuery,
  ListUsersQuery,
  NicknameAvailabilityQuery,
  NicknameAvailabilitySchema,
  UserListSchema,
  MeSchema,
  UserIdParams,
  UserSchema,
} from '../../shared/schemas/users.js';
import type { RouteContext } from '../context.js';

export function registerUserRoutes({ routes, deps, reauthenticate }: RouteContext): void {
  const tag = 'Users';
  routes.add(
    { method: 'POST', url: '/users', operationId: 'create_user', conflicts: [ErrorCode.emailTaken, ErrorCode.nicknameTaken], tag, summary: 'Create a user (role Members)', body: CreateUserInput, response: UserSchema },
    ({ body, caller }) => createUser(deps, caller, body),
  );
  routes.add(
    { method: 'GET', url: '/users', operationId: 'list_users', tag, summary: 'List users', query: ListUsersQuery, response: UserListSchema },
    ({ query, caller }) => listUsers(deps, caller, query),
  );
  routes.add(
    {
      method: 'GET',
      url: '/users/export',
      operationId: 'export_users',
      tag,
      summary: 'Every user you may see, streamed as NDJSON or CSV (permission users.export); never a password',
      query: ExportUsersQuery,
      text: EXPORT_MEDIA,
    },
    async ({ query, caller, reply, request }) => {
      const lines = exportUsers(deps, caller, query.format, () => reauthenticate(request));
      // The permission is checked before the first byte, so that a refusal is an error body, not a cut stream.
      const first = await lines.next();
      reply.type(query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
      // One batch (500 rows) waits in the stream at most, not Readable.from's default of 16: what the server
      // holds of an export is that and the socket's buffer, whatever the number of users.
      return Readable.from(
        (async function* () {
          if (!first.done) yield first.value;
          yield* lines;
        })(),
        { highWaterMark: 1 },
      );
    },
  );
  routes.add(
    {
      method: 'GET',
      url: '/users/nickname_availability',
      operationId: 'get_nickname_availability',
      tag,
      summary: 'Tell whether a nickname is free',
      query: NicknameAvailabilityQuery,
      response: NicknameAvailabilitySchema,
    },
    async ({ query }) => ({ nickname: query.nickname, available: await isNicknameAvailable(deps, query.nickname) }),
  );
  routes.add(
    { method: 'GET', url: '/users/:user_id', operationId: 'get_user', tag, summary: 'Get a user', params: UserIdParams, response: UserSchema },
    ({ params, caller }) => getUser(deps, caller, params.user_id),
  );
  routes.add(
    { method: 'GET', url: '/me', operationId: 'get_me', tag, summary: 'The user whose API key signs the request', response: MeSchema },
    async ({ caller }) => ({ ...(await getUser(deps, caller, caller.user.id)), is_admin: caller.isAdmin }),
  );
}
