import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { User } from '../../shared/schemas/users.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

export const USER_COLUMNS: Column<User>[] = [
  { header: 'id', value: (u) => u.id },
  { header: 'nickname', value: (u) => u.nickname },
  { header: 'name', value: (u) => u.fullname },
  { header: 'email', value: (u) => u.email },
  { header: 'role', value: (u) => u.tagline?.name ?? u.permission_set_id },
];

interface CreateOptions {
  firstName?: string;
  lastName?: string;
  nickname?: string;
  email?: string;
  password?: string;
  acceptConditions?: boolean;
  acceptConfidentiality?: boolean;
}

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('users of the community');

  users
    .command('create')
    .description('create a user (role Members)')
    .requiredOption('--first-name <name>', 'first name')
    .requiredOption('--last-name <name>', 'last name')
    .requiredOption('--nickname <nickname>', 'unique nickname')
    .requiredOption('--email <email>', 'unique email address')
    .option('--password <password>', 'at least 8 characters with a letter and a digit (asked on a TTY when missing)')
    .option('--accept-conditions', 'the user accepts the conditions of use (required)')
    .option('--accept-confidentiality', 'the user accepts the confidentiality policy (required)')
    .action(
      withContext<CreateOptions>(async ({ client, out }, o) => {
        let password = o.password ?? process.env.AGORA_USER_PASSWORD;
        if (password === undefined && process.stdin.isTTY) {
          const { password: ask } = await import('@inquirer/prompts');
          password = await ask({ message: 'Password', mask: '*' });
        }
        const { CreateUserInput } = await import('../../shared/schemas/users.js');
        const body = {
          first_name: o.firstName,
          last_name: o.lastName,
          nickname: o.nickname,
          email: o.email,
          password,
          accept_conditions: !!o.acceptConditions,
          accept_confidentiality: !!o.acceptConfidentiality,
        };
        await validateBody(CreateUserInput, body, {
          accept_conditions: '--accept-conditions',
          accept_confidentiality: '--accept-confidentiality',
        });
        await out.record(await client.post<User>('/users', body), USER_COLUMNS);
      }),
    );

  paginationOptions(
    users
      .command('list')
      .description('list users')
      .option('--role <role>', 'only users with this role (permission set id or name)')
      .option('--nickname <nickname>', 'only the user with exactly this nickname'),
  ).action(
    withContext<PageOptions & { role?: string; nickname?: string }>(async ({ client, out }, o) => {
      const result = await client.get<ListResult<User>>('/users', { ...pageQuery(o), role: o.role, nickname: o.nickname });
      await out.list(result, USER_COLUMNS, pageQuery(o));
    }),
  );

  users
    .command('get')
    .description('show one user')
    .argument('<id>', 'user id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.get<User>(`/users/${seg(id!)}`));
      }),
    );
}
