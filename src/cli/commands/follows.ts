import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Follow } from '../../shared/schemas/follows.js';
import { doneRecord, eachRecord, examples, fewAtATime, idsFrom, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Context } from '../context.js';
import type { Names } from '../names.js';
import type { Column, RecordView } from '../output.js';

const followedName = (f: Follow) => (f.followable ? ('nickname' in f.followable ? f.followable.nickname : f.followable.name) : null);

const COLUMNS: Column<Follow>[] = [
  { header: 'id', value: (f) => f.id, id: true },
  { header: 'user', name: ['user', (f) => f.user_id] },
  { header: 'type', value: (f) => f.followable_type },
  { header: 'followed', value: (f) => f.followable_id, id: true },
  { header: 'followed name', value: followedName },
];

const FOLLOW_VIEW: RecordView<Follow> = { names: { user_id: ['follower', 'user'] } };

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

/** A followed record by id, or by a page's slug or a user's nickname. */
const followable = (names: Names, type: string, ref: string) => names.resolve(type === 'User' ? 'user' : 'page', ref);

export function registerFollowCommands(program: Command): void {
  const follows = program.command('follows').description('subscriptions to users and pages');

  examples(
    follows
      .command('create')
      .description('follow a page or a user (missing values are asked for on a terminal)')
      .addOption(typeOption('what to follow (required)'))
      .option('--id <ref>', 'the page (id or slug) or user (id or nickname) to follow (required)')
      .option('--user <user>', 'the follower: id or nickname (default: you)'),
    'agora follows create --type Page --id garden-club',
    'agora follows create --type User --id ada --user linus',
  ).action(
    withContext<{ type?: string; id?: string; user?: string }>(async ({ client, out, names }, o) => {
      const [{ CreateFollowInput }, { askMissing }] = await Promise.all([import('../../shared/schemas/follows.js'), import('../prompts.js')]);
      const values = await askMissing(
        { type: o.type, id: o.id },
        {
          type: { flag: '--type', message: 'Follow a', choices: FOLLOWABLE_TYPES },
          id: { flag: '--id', message: 'Which one (id, page slug or user nickname)' },
        },
      );
      const body = { followable_type: values.type, followable_id: values.id, user_id: o.user ?? 'me' };
      // Options are checked before any request, so a bad one is a usage error even when the server is away.
      const valid = await validateBody(CreateFollowInput, body, { followable_type: '--type', followable_id: '--id', user_id: '--user' });
      valid.followable_id = await followable(names, valid.followable_type, values.id!);
      valid.user_id = o.user ? await names.resolve('user', o.user) : (await client.get<{ id: string }>('/me')).id;
      await out.record(await client.post<Follow>('/follows', valid), FOLLOW_VIEW);
    }),
  );

  examples(
    paginationOptions(
      follows
        .command('list')
        .description('list follows')
        .addOption(typeOption('only follows of this type'))
        .option('--id <ref>', 'only follows of this page or user (an id; a slug or nickname with --type)')
        .option('--user <user>', 'only follows by this user (id or nickname)'),
    ),
    'agora follows list --user linus',
    'agora follows list --type Page --id garden-club --all',
  ).action(
    withContext<PageOptions & { type?: string; id?: string; user?: string }>(async (ctx, o) => {
      const query = {
        followable_type: o.type,
        followable_id: o.id && (o.type ? await followable(ctx.names, o.type, o.id) : o.id),
        user_id: o.user && (await ctx.names.resolve('user', o.user)),
      };
      await showList(ctx, '/follows', query, COLUMNS, o);
    }),
  );

  examples(follows.command('get').description('show one follow, with what it follows').argument('<id>', 'follow id (or a prefix of one of yours)'), 'agora follows get 3f2a…').action(
    withContext(async ({ client, out, names }, _o, [ref]) => {
      const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const [id] = await names.fullIds(ID_LISTS.follow, [ref!]);
      await out.record(await client.get<Follow>(`/follows/${seg(id!)}`), FOLLOW_VIEW);
    }),
  );

  examples(
    follows
      .command('delete')
      .description('unfollow: delete follows by their ids')
      .argument('<id...>', 'follow ids, or - to read them from standard input')
      .option('-y, --yes', 'do not ask for confirmation'),
    'agora follows delete 3f2a… --yes',
  ).action(
    withContext<{ yes?: boolean }>(async (ctx, o, args) => {
      const { client, out, names } = ctx;
      const [{ seg }, { confirmOrStop, mayAsk }, { ID_LISTS }] = await Promise.all([
        import('../../client/api-client.js'),
        import('../confirm.js'),
        import('../names.js'),
      ]);
      const ids = await names.fullIds(ID_LISTS.follow, await idsFrom(args));
      const asking = mayAsk(o.yes);
      const described = asking ? await describeFollows(ctx, ids) : new Map<string, string>();
      await eachRecord(ctx, ids, (id) => `Follow ${id}`, async (id) => {
        const what = described.get(id) ?? `follow ${id}`;
        await confirmOrStop(`Delete ${what}?`, o.yes);
        await client.delete(`/follows/${seg(id)}`);
        out.done(described.has(id) ? `Deleted ${what}` : `Follow ${id} deleted`, doneRecord(id, 'deleted'));
      });
    }),
  );
}

/**
 * What a person is asked about: "ada's follow of Garden Club (page)" rather than a bare id, each follow read by its id
 * (a few at a time). One that cannot be read stays an id, and its unfollow says why.
 */
async function describeFollows({ client, names }: Context, ids: string[]): Promise<Map<string, string>> {
  const { seg } = await import('../../client/api-client.js');
  const read = await fewAtATime(ids, (id) => client.get<Follow>(`/follows/${seg(id)}`).catch(() => undefined));
  const follows = read.filter((follow): follow is Follow => follow !== undefined);
  await names.load('user', follows.map((f) => f.user_id));
  return new Map(
    follows.map((f) => [
      f.id,
      `${names.get('user', f.user_id) ?? f.user_id}'s follow of ${followedName(f) ?? f.followable_id} (${f.followable_type === 'Page' ? 'page' : 'user'})`,
    ]),
  );
}
