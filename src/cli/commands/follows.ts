import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { Follow } from '../../shared/schemas/follows.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

const COLUMNS: Column<Follow>[] = [
  { header: 'id', value: (f) => f.id },
  { header: 'user', value: (f) => f.user_id },
  { header: 'type', value: (f) => f.followable_type },
  { header: 'followed', value: (f) => f.followable_id },
  {
    header: 'followed name',
    value: (f) => (f.followable ? ('nickname' in f.followable ? f.followable.nickname : f.followable.name) : null),
  },
];

const FOLLOWABLE_TYPES = ['Page', 'User'];

/** Checked before the request, as the server would: any case of Page or User. */
function followableType(value: string): string {
  const type = FOLLOWABLE_TYPES.find((t) => t.toLowerCase() === value.trim().toLowerCase());
  if (!type) throw new InvalidArgumentError(`must be one of: ${FOLLOWABLE_TYPES.join(', ')}`);
  return type;
}

/** `--type`, whose choices the completion scripts offer; any case is accepted. */
const typeOption = (description: string) =>
  new Option('--type <type>', description).choices(FOLLOWABLE_TYPES).argParser(followableType);

export function registerFollowCommands(program: Command): void {
  const follows = program.command('follows').description('subscriptions to users and pages');

  follows
    .command('create')
    .description('follow a page or a user')
    .addOption(typeOption('what to follow').makeOptionMandatory())
    .requiredOption('--id <id>', 'id of the page or user to follow')
    .option('--user <id>', 'the follower (default: you)')
    .action(
      withContext<{ type: string; id: string; user?: string }>(async ({ client, out }, o) => {
        const { CreateFollowInput } = await import('../../shared/schemas/follows.js');
        const body = { followable_type: o.type, followable_id: o.id, user_id: o.user ?? 'me' };
        // Options are checked before any request, so a bad one is a usage error even when the server is away.
        const valid = await validateBody(CreateFollowInput, body, {
          followable_type: '--type',
          followable_id: '--id',
          user_id: '--user',
        });
        valid.user_id = o.user ?? (await client.get<{ id: string }>('/me')).id;
        await out.record(await client.post<Follow>('/follows', valid));
      }),
    );

  paginationOptions(
    follows
      .command('list')
      .description('list follows')
      .addOption(typeOption('only follows of this type'))
      .option('--id <id>', 'only follows of this page or user')
      .option('--user <id>', 'only follows by this user'),
  ).action(
    withContext<PageOptions & { type?: string; id?: string; user?: string }>(async ({ client, out }, o) => {
      const result = await client.get<ListResult<Follow>>('/follows', {
        ...pageQuery(o),
        followable_type: o.type,
        followable_id: o.id,
        user_id: o.user,
      });
      await out.list(result, COLUMNS, pageQuery(o));
    }),
  );

  follows
    .command('delete')
    .description('unfollow (delete a follow by its id)')
    .argument('<id>', 'follow id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await client.delete(`/follows/${seg(id!)}`);
        out.done(`Follow ${id} deleted`);
      }),
    );
}
