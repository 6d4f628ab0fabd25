import type { Command } from 'commander';
import type { User } from '../../shared/schemas/users.js';
import { examples, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column, RecordView } from '../output.js';
import { suspensionEnd } from '../suspensions.js';

export const USER_COLUMNS: Column<User>[] = [
  { header: 'id', value: (u) => u.id, id: true },
  { header: 'nickname', value: (u) => u.nickname },
  { header: 'name', value: (u) => u.fullname },
  { header: 'email', value: (u) => u.email },
  { header: 'role', name: ['role', (u) => u.permission_set_id] },
  // Empty unless suspended: when it ends (a suspension past its end is over, and the API shows none). Whole in a
  // narrow table where any is (`users list --suspended`; to the minute, as times are), the role and email left out
  // first: `until 202…` says nothing.
  { header: 'suspended', value: (u) => (u.suspension ? suspensionEnd(u.suspension.until) : ''), room: 23, outlasts: true },
];

/** One view of a user, from create, get, set-role and suspend alike: a suspension as when it ends and why. */
export const USER_VIEW: RecordView<User> = {
  names: { permission_set_id: ['role', 'role'] },
  format: { suspension: (s: User['suspension']) => (s ? `${suspensionEnd(s.until)}: ${s.reason}` : '') },
};

interface CreateOptions {
  firstName?: string;
  lastName?: string;
  nickname?: string;
  email?: string;
  password?: string;
  passwordStdin?: boolean;
  acceptConditions?: boolean;
  acceptConfidentiality?: boolean;
}

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('users of the community');

  examples(
    users
      .command('create')
      .description('create a user (role Members); missing values are asked for on a terminal')
      .option('--first-name <name>', 'first name (required)')
      .option('--last-name <name>', 'last name (required)')
      .option('--nickname <nickname>', 'unique nickname (required)')
      .option('--email <email>', 'unique email address (required)')
      .option('--password <password>', 'at least 8 characters with a letter and a digit (visible in ps: prefer --password-stdin)')
      .option('--password-stdin', 'read the password from the first line of standard input')
      .option('--accept-conditions', 'the user accepts the conditions of use (required)')
      .option('--accept-confidentiality', 'the user accepts the confidentiality policy (required)'),
    'agora users create --first-name Ada --last-name Lovelace --nickname ada --email ada@example.org --accept-conditions --accept-confidentiality',
    "printf '%s\\n' \"$PASSWORD\" | agora users create --nickname linus … --password-stdin",
  ).action(
    withContext<CreateOptions>(async ({ client, out }, o) => {
      const [{ CreateUserInput }, { askMissing, fieldCheck, secretFromStdin }] = await Promise.all([
        import('../../shared/schemas/users.js'),
        import('../prompts.js'),
      ]);
      const password = o.passwordStdin ? await secretFromStdin('--password-stdin') : (o.password ?? process.env.AGORA_USER_PASSWORD);
      const field = CreateUserInput.shape;
      // Asked at a terminal, a nickname taken (whatever its case) is said at once; a caller who may not list users learns it at the end.
      const nicknameTaken = async (nickname: string) => {
        const found = await client.get<{ items: User[] }>('/users', { nickname, per_page: 1 }).then((page) => page.items[0], () => undefined);
        return found ? `${nickname} is taken (by ${found.nickname}): pick another` : undefined;
      };
      const values = await askMissing(
        {
          first_name: o.firstName,
          last_name: o.lastName,
          nickname: o.nickname,
          email: o.email,
          password,
          accept_conditions: o.acceptConditions,
          accept_confidentiality: o.acceptConfidentiality,
        },
        {
          first_name: { flag: '--first-name', message: 'First name', check: fieldCheck(field.first_name) },
          last_name: { flag: '--last-name', message: 'Last name', check: fieldCheck(field.last_name) },
          nickname: { flag: '--nickname', message: 'Nickname', check: async (v) => fieldCheck(field.nickname)(v) ?? (await nicknameTaken(v)) },
          email: { flag: '--email', message: 'Email', check: fieldCheck(field.email) },
          password: { flag: '--password-stdin', message: 'Password', kind: 'secret', check: fieldCheck(field.password) },
          accept_conditions: { flag: '--accept-conditions', message: 'Does the user accept the conditions of use?', kind: 'confirm' },
          accept_confidentiality: {
            flag: '--accept-confidentiality',
            message: 'Does the user accept the confidentiality policy?',
            kind: 'confirm',
          },
        },
      );
      const body = { ...values, accept_conditions: !!values.accept_conditions, accept_confidentiality: !!values.accept_confidentiality };
      await validateBody(CreateUserInput, body, {
        accept_conditions: '--accept-conditions',
        accept_confidentiality: '--accept-confidentiality',
      });
      await out.record(await client.post<User>('/users', body), USER_VIEW);
    }),
  );

  examples(
    paginationOptions(
      users
        .command('list')
        .description('list users')
        .option('--role <role>', 'only users with this role (id or name)')
        .option('--nickname <nickname>', 'only the user with exactly this nickname')
        .option('--suspended', 'only the users suspended now'),
    ),
    'agora users list --role Admins',
    'agora users list --suspended',
    'agora users list --all --fields nickname,email --header > users.tsv',
  ).action(
    withContext<PageOptions & { role?: string; nickname?: string; suspended?: boolean }>(async (ctx, o) => {
      // Resolved as everywhere (a name, an id or its prefix): one that names no role is said (exit 1), not an empty list.
      const role = o.role === undefined ? undefined : await ctx.names.resolve('role', o.role);
      await showList(ctx, '/users', { role, nickname: o.nickname, suspended: o.suspended ? 'true' : undefined }, USER_COLUMNS, o);
    }),
  );

  examples(
    users.command('get').description('show one user').argument('<user>', 'user id or nickname'),
    'agora users get linus',
  ).action(
    withContext(async ({ client, out, names }, _o, [ref]) => {
      const { seg } = await import('../../client/api-client.js');
      const id = await names.resolve('user', ref!);
      await out.record(await client.get<User>(`/users/${seg(id)}`), USER_VIEW);
    }),
  );

}
