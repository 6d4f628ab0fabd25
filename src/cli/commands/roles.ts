import { InvalidArgumentError, type Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { PermissionSet } from '../../shared/schemas/roles.js';
import type { User } from '../../shared/schemas/users.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

const granted = (set: PermissionSet) =>
  Object.entries(set.permissions)
    .flatMap(([category, actions]) =>
      Object.entries(actions as Record<string, boolean>)
        .filter(([, on]) => on)
        .map(([action]) => `${category}.${action}`),
    )
    .join(' ');

const COLUMNS: Column<PermissionSet>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'name', value: (s) => s.name },
  { header: 'tagline', value: (s) => s.show_as_tagline },
  { header: 'default', value: (s) => s.is_default },
];

const DETAIL: Column<PermissionSet>[] = [
  ...COLUMNS,
  { header: 'image_url', value: (s) => s.image_url },
  { header: 'granted', value: granted },
];

/** `--allow users.index` (repeatable) → `{users: {index: true}}`. */
const collectAction = (value: string, previous: string[] = []) => {
  if (!/^[a-z_]+\.[a-z_]+$/.test(value)) throw new InvalidArgumentError('must be category.action, e.g. users.index');
  return [...previous, value];
};

function permissionsFrom(allow: string[] = [], deny: string[] = []) {
  if (allow.length === 0 && deny.length === 0) return undefined;
  const out: Record<string, Record<string, boolean>> = {};
  for (const [list, value] of [
    [allow, true],
    [deny, false],
  ] as const)
    for (const item of list) {
      const [category, action] = item.split('.') as [string, string];
      (out[category] ??= {})[action] = value;
    }
  return out;
}

interface SetOptions {
  name?: string;
  tagline?: boolean;
  imageUrl?: string;
  allow?: string[];
  deny?: string[];
}

/** Accepts a permission set id or name. */
export async function resolveRoleId(client: { get<T>(p: string, q?: object): Promise<T> }, ref: string): Promise<string> {
  if (/^[0-9a-f]{32}$/.test(ref)) return ref;
  // Every page of roles, not only the first hundred.
  for (let page = 1, seen = 0; ; page++) {
    const sets = await client.get<ListResult<PermissionSet>>('/permission_sets', { page, per_page: 100 });
    const match = sets.items.find((s) => s.name.toLowerCase() === ref.toLowerCase());
    if (match) return match.id;
    seen += sets.items.length;
    if (sets.items.length === 0 || seen >= sets.total_items) break;
  }
  const { UsageError } = await import('../errors.js');
  throw new UsageError(`No role named "${ref}" (agora roles list shows them)`);
}

export function registerRoleCommands(program: Command): void {
  const roles = program.command('roles').description('permission sets (roles) and what they grant');

  paginationOptions(roles.command('list').description('list roles')).action(
    withContext<PageOptions>(async ({ client, out }, o) => {
      await out.list(await client.get<ListResult<PermissionSet>>('/permission_sets', pageQuery(o)), COLUMNS, pageQuery(o));
    }),
  );

  roles
    .command('get')
    .description('show a role and the actions it grants')
    .argument('<role>', 'role id or name')
    .action(
      withContext(async ({ client, out }, _o, [ref]) => {
        const { seg } = await import('../../client/api-client.js');
        const id = await resolveRoleId(client, ref!);
        await out.record(await client.get<PermissionSet>(`/permission_sets/${seg(id)}`), DETAIL);
      }),
    );

  roles
    .command('create')
    .description('create a role; actions not allowed are denied')
    .requiredOption('--name <name>', 'role name')
    .option('--tagline', 'show the role as a tagline on its users')
    .option('--image-url <url>', 'image that goes with the role')
    .option('--allow <category.action>', 'grant an action (repeatable)', collectAction)
    .action(
      withContext<SetOptions>(async ({ client, out }, o) => {
        const { CreatePermissionSetInput } = await import('../../shared/schemas/roles.js');
        const body = {
          name: o.name,
          show_as_tagline: !!o.tagline,
          image_url: o.imageUrl,
          permissions: permissionsFrom(o.allow),
        };
        await validateBody(CreatePermissionSetInput, body, { permissions: '--allow', show_as_tagline: '--tagline' });
        await out.record(await client.post<PermissionSet>('/permission_sets', body), DETAIL);
      }),
    );

  roles
    .command('update')
    .description('change a role; actions not named keep their value')
    .argument('<role>', 'role id or name')
    .option('--name <name>', 'new name')
    .option('--tagline', 'show the role as a tagline')
    .option('--no-tagline', 'stop showing the role as a tagline')
    .option('--image-url <url>', 'image that goes with the role ("" removes it)')
    .option('--allow <category.action>', 'grant an action (repeatable)', collectAction)
    .option('--deny <category.action>', 'deny an action (repeatable)', collectAction)
    .action(
      withContext<SetOptions>(async ({ client, out }, o, [ref]) => {
        const [{ seg }, { UpdatePermissionSetInput }] = await Promise.all([
          import('../../client/api-client.js'),
          import('../../shared/schemas/roles.js'),
        ]);
        const body = {
          name: o.name,
          show_as_tagline: o.tagline,
          image_url: o.imageUrl === '' ? null : o.imageUrl,
          permissions: permissionsFrom(o.allow, o.deny),
        };
        await validateBody(UpdatePermissionSetInput, body, { permissions: '--allow/--deny', show_as_tagline: '--tagline' });
        const id = await resolveRoleId(client, ref!);
        await out.record(await client.call<PermissionSet>('PUT', `/permission_sets/${seg(id)}`, { body }), DETAIL);
      }),
    );

  roles
    .command('delete')
    .description('delete a role nobody has (the three defaults stay)')
    .argument('<role>', 'role id or name')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(
      withContext<{ yes?: boolean }>(async ({ client, out }, o, [ref]) => {
        const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
        const id = await resolveRoleId(client, ref!);
        await confirmOrStop(`Delete role ${ref}?`, o.yes);
        await client.delete(`/permission_sets/${seg(id)}`);
        out.done(`Role ${ref} deleted`);
      }),
    );
}

/** `agora users set-role <user> --role <role>`, registered on the users group. */
export function registerSetRoleCommand(users: Command): void {
  users
    .command('set-role')
    .description("change a user's role (Admins)")
    .argument('<user>', 'user id')
    .requiredOption('--role <role>', 'role id or name (Admins, Members, Visitors, …)')
    .action(
      withContext<{ role: string }>(async ({ client, out }, o, [userId]) => {
        const { seg } = await import('../../client/api-client.js');
        const permission_set_id = await resolveRoleId(client, o.role);
        await out.record(await client.put<User>(`/users/${seg(userId!)}/role`, { permission_set_id }));
      }),
    );
}
