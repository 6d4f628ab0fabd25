import { InvalidArgumentError, type Command } from 'commander';
import type { PermissionSet } from '../../shared/schemas/roles.js';
import type { User } from '../../shared/schemas/users.js';
import { doneRecord, eachRecord, examples, idsFrom, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column, RecordView } from '../output.js';
import { USER_VIEW } from './users.js';

const granted = (permissions: PermissionSet['permissions']) =>
  Object.entries(permissions)
    .flatMap(([category, actions]) =>
      Object.entries(actions as Record<string, boolean>)
        .filter(([, on]) => on)
        .map(([action]) => `${category}.${action}`),
    )
    .join(' ');

const COLUMNS: Column<PermissionSet>[] = [
  { header: 'id', value: (s) => s.id, id: true },
  { header: 'name', value: (s) => s.name },
  { header: 'tagline', value: (s) => s.show_as_tagline },
  { header: 'default', value: (s) => s.is_default },
];

/** One view of a role: its fields, and the actions it grants as one line. */
const DETAIL: RecordView<PermissionSet> = { format: { permissions: granted as (value: never) => unknown } };

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

export function registerRoleCommands(program: Command): void {
  const roles = program.command('roles').description('permission sets (roles) and what they grant');

  examples(paginationOptions(roles.command('list').description('list roles')), 'agora roles list').action(
    withContext<PageOptions>(async (ctx, o) => {
      await showList(ctx, '/permission_sets', {}, COLUMNS, o);
    }),
  );

  examples(
    roles.command('get').description('show a role and the actions it grants').argument('<role>', 'role id or name'),
    'agora roles get Members',
  ).action(
      withContext(async ({ client, out, names }, _o, [ref]) => {
        const { seg } = await import('../../client/api-client.js');
        const id = await names.resolve('role', ref!);
        await out.record(await client.get<PermissionSet>(`/permission_sets/${seg(id)}`), DETAIL);
      }),
    );

  examples(
    roles
      .command('create')
      .description('create a role; actions not allowed are denied (the name is asked for on a terminal)')
      .option('--name <name>', 'role name (required)')
      .option('--tagline', 'show the role as a tagline on its users')
      .option('--image-url <url>', 'image that goes with the role')
      .option('--allow <category.action>', 'grant an action (repeatable)', collectAction),
    'agora roles create --name Moderators --tagline --allow users.index --allow users.show',
  ).action(
      withContext<SetOptions>(async ({ client, out }, o) => {
        const [{ CreatePermissionSetInput }, { askMissing, fieldCheck }] = await Promise.all([
          import('../../shared/schemas/roles.js'),
          import('../prompts.js'),
        ]);
        const { name } = await askMissing(
          { name: o.name },
          { name: { flag: '--name', message: 'Role name', check: fieldCheck(CreatePermissionSetInput.shape.name) } },
        );
        const body = {
          name,
          show_as_tagline: !!o.tagline,
          image_url: o.imageUrl,
          permissions: permissionsFrom(o.allow),
        };
        await validateBody(CreatePermissionSetInput, body, { permissions: '--allow', show_as_tagline: '--tagline' });
        await out.record(await client.post<PermissionSet>('/permission_sets', body), DETAIL);
      }),
    );

  examples(
    roles
      .command('update')
      .description('change a role; actions not named keep their value')
      .argument('<role>', 'role id or name')
      .option('--name <name>', 'new name')
      .option('--tagline', 'show the role as a tagline')
      .option('--no-tagline', 'stop showing the role as a tagline')
      .option('--image-url <url>', 'image that goes with the role ("" removes it)')
      .option('--allow <category.action>', 'grant an action (repeatable)', collectAction)
      .option('--deny <category.action>', 'deny an action (repeatable)', collectAction),
    'agora roles update Moderators --allow users.export --deny users.show',
  ).action(
      withContext<SetOptions>(async ({ client, out, names }, o, [ref]) => {
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
        const id = await names.resolve('role', ref!);
        await out.record(await client.call<PermissionSet>('PUT', `/permission_sets/${seg(id)}`, { body }), DETAIL);
      }),
    );

  examples(
    roles
      .command('delete')
      .description('delete roles nobody has (the three defaults stay)')
      .argument('<role...>', 'role ids or names, or - to read them from standard input')
      .option('-y, --yes', 'do not ask for confirmation'),
    'agora roles delete Moderators --yes',
  ).action(
      withContext<{ yes?: boolean }>(async (ctx, o, args) => {
        const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
        // Every name is looked up before any role is deleted; a role named twice is deleted once.
        const refs = [...new Set(await idsFrom(args))];
        const ids = new Map((await ctx.names.resolveAll('role', refs)).map((id, i) => [refs[i]!, id]));
        await eachRecord(
          ctx,
          refs,
          (ref) => `Role ${ref}`,
          async (ref) => {
            await confirmOrStop(`Delete role ${ref}?`, o.yes);
            await ctx.client.delete(`/permission_sets/${seg(ids.get(ref)!)}`);
            ctx.out.done(`Role ${ref} deleted`, doneRecord(ids.get(ref)!, 'deleted'));
          },
          { adminsOnly: true },
        );
      }),
    );
}

/** `agora users set-role <user> --role <role>`, registered on the users group. */
export function registerSetRoleCommand(users: Command): void {
  examples(
    users
      .command('set-role')
      .description("change a user's role (Admins); the role is picked from a list on a terminal when missing")
      .argument('<user>', 'user id or nickname')
      .option('--role <role>', 'role id or name (Admins, Members, Visitors, …; required)'),
    'agora users set-role linus --role Admins',
  ).action(
      withContext<{ role?: string }>(async ({ client, out, names }, o, [ref]) => {
        const [{ seg }, { askMissing }] = await Promise.all([import('../../client/api-client.js'), import('../prompts.js')]);
        const { role } = await askMissing(
          { role: o.role },
          {
            role: {
              flag: '--role',
              message: 'Role',
              choices: async () =>
                (await client.get<{ items: PermissionSet[] }>('/permission_sets', { per_page: 100 })).items.map((s) => ({
                  name: s.name,
                  value: s.id,
                })),
            },
          },
        );
        const [userId, permission_set_id] = await Promise.all([names.resolve('user', ref!), names.resolve('role', role!)]);
        await out.record(await client.put<User>(`/users/${seg(userId)}/role`, { permission_set_id }), USER_VIEW);
      }),
    );
}
