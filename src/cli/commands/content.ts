import type { Command } from 'commander';
import type { Comment, Like, Status } from '../../shared/schemas/content.js';
import { examples, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Names } from '../names.js';
import type { Column, RecordView } from '../output.js';
import { suspensionEnd } from '../suspensions.js';

export const STATUS_COLUMNS: Column<Status>[] = [
  { header: 'id', value: (s) => s.id, id: true },
  { header: 'author', value: (s) => s.user.nickname },
  // What was said, readable at 80 columns (`stream`, `statuses list`): the counts, the time and the suspension, last,
  // are left out (and said so) before the words are cut below `room`.
  { header: 'content', value: (s) => s.content, room: 24 },
  { header: 'page', name: ['page', (s) => s.page_id] },
  { header: 'event', name: ['event', (s) => s.event_id] },
  { header: 'comments', value: (s) => s.comments_count },
  { header: 'likes', value: (s) => s.likes_count },
  { header: 'created', value: (s) => s.created_at },
  // Only Admins read the statuses of a suspended author (hidden from everyone else while it lasts): when it ends. To
  // a moderator that matters more than the counts and the time: they are left out before it, when any row says one.
  { header: 'suspended', value: (s) => (s.user.suspension ? suspensionEnd(s.user.suspension.until) : ''), outlasts: true, room: 16 },
];

/**
 * The author, and their suspension while it lasts: it hides what they posted from everyone but Admins, the only
 * ones who read it then (`statuses get`, `comments get`).
 */
const author = (user: Status['user']) =>
  user.suspension ? `${user.nickname} (suspended ${suspensionEnd(user.suspension.until)}: hidden from all but Admins)` : user.nickname;

/** Content by its names: the place, the author (suspended or not) and who removed it (Admins read removed content). */
const STATUS_VIEW: RecordView<Status> = {
  names: { page_id: ['page', 'page'], event_id: ['event', 'event'], removed_by: ['removed by', 'user'] },
  format: { user: author },
};
const COMMENT_VIEW: RecordView<Comment> = { names: { removed_by: ['removed by', 'user'] }, format: { user: author } };

// The status last: the same on every row of `statuses comments <status>`, it is the first left out of a narrow table,
// before the words are cut below `room`.
const COMMENT_COLUMNS: Column<Comment>[] = [
  { header: 'id', value: (c) => c.id, id: 'whole' },
  { header: 'author', value: (c) => c.user.nickname },
  { header: 'content', value: (c) => c.content, room: 24 },
  { header: 'created', value: (c) => c.created_at },
  { header: 'status', value: (c) => c.status_id, id: true },
];

const LIKE_COLUMNS: Column<Like>[] = [
  { header: 'id', value: (l) => l.id, id: 'whole' },
  { header: 'user', value: (l) => l.user.nickname },
  { header: 'status', value: (l) => l.status_id ?? '', id: true },
  { header: 'comment', value: (l) => l.comment_id ?? '', id: 'whole' },
  { header: 'created', value: (l) => l.created_at },
];

/** What `--status` or `--comment` names (one of them, else a usage error): its likes' path. */
export async function likedPath(names: Names, o: { status?: string; comment?: string }): Promise<string> {
  if (!o.status === !o.comment) {
    const { UsageError } = await import('../errors.js');
    throw new UsageError('give --status or --comment (one of them)');
  }
  const [{ seg }, { ID_LISTS, wholeIds }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
  if (o.status) return `/statuses/${seg((await names.fullIds(ID_LISTS.status, [o.status]))[0]!)}/likes`;
  return `/comments/${seg(wholeIds('comment', [o.comment!])[0]!)}/likes`;
}

/** The user named (by id or nickname), or the caller. */
export const userOrMe = async (client: { get<T>(path: string): Promise<T> }, names: Names, user?: string) =>
  user ? names.resolve('user', user) : (await client.get<{ id: string }>('/me')).id;

export function registerContentCommands(program: Command): void {
  const statuses = program.command('statuses').description('statuses: on a profile, in a page, or in an event');
  examples(
    statuses
      .command('create')
      .description("post a status on your profile, in a page you are in, or in an event's conversation")
      .option('--content <text>', 'what to say (required; asked for on a terminal)')
      .option('--page-id <page>', 'post in this page (id or slug)')
      .option('--event-id <event>', "post in this event's conversation (id or slug)")
      .option('--user <user>', 'the author: id or nickname (default: you)'),
    'agora statuses create --content "Seeds swap on Saturday" --page-id garden-club',
  ).action(
    withContext<{ content?: string; pageId?: string; eventId?: string; user?: string }>(async ({ client, out, names }, o) => {
      const [{ CreateStatusInput }, { askMissing, fieldCheck }] = await Promise.all([
        import('../../shared/schemas/content.js'),
        import('../prompts.js'),
      ]);
      const { content } = await askMissing(
        { content: o.content },
        { content: { flag: '--content', message: 'Status', check: fieldCheck(CreateStatusInput.shape.content) } },
      );
      const body = { user_id: o.user ?? 'me', content, page_id: o.pageId, event_id: o.eventId };
      await validateBody(CreateStatusInput, body, { user_id: '--user', page_id: '--page-id', event_id: '--event-id' });
      body.user_id = await userOrMe(client, names, o.user);
      if (o.pageId) body.page_id = await names.resolve('page', o.pageId);
      if (o.eventId) body.event_id = await names.resolve('event', o.eventId);
      await out.record(await client.post<Status>('/statuses', body), STATUS_VIEW);
    }),
  );
  examples(statuses.command('get').description('show one status').argument('<id>', 'status id'), 'agora statuses get 3f2a…').action(
    withContext(async ({ client, out, names }, _o, args) => {
      const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const [id] = await names.fullIds(ID_LISTS.status, args);
      await out.record(await client.get<Status>(`/statuses/${seg(id!)}`), STATUS_VIEW);
    }),
  );
  examples(
    paginationOptions(statuses.command('comments').description('the comments on a status, oldest first').argument('<id>', 'status id')),
    'agora statuses comments 3f2a… --all',
  ).action(
    withContext<PageOptions>(async (ctx, o, args) => {
      const [{ seg, ApiError }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const [id] = await ctx.names.fullIds(ID_LISTS.status, args);
      await showList(ctx, `/statuses/${seg(id!)}/comments`, {}, COMMENT_COLUMNS, o).catch(async (error: unknown) => {
        // A removed status (an Admin's 404): the API's message names its own path for the comments; the CLI names its
        // command. With --json, the API's error body is the one printed.
        if (!(error instanceof ApiError && error.status === 404) || ctx.out.json) throw error;
        const status = await ctx.client.get<Status>(`/statuses/${seg(id!)}`).catch(() => undefined);
        if (!status?.removed_at) throw error;
        const [{ selfCommand }, { firstWords }] = await Promise.all([import('../self-command.js'), import('../safe-text.js')]);
        const message =
          `${status.user.nickname}'s status "${firstWords(status.content)}" was removed (${status.removed_at}), its comments with it: ` +
          `${selfCommand()} removed list --target-type Comment lists them`;
        throw new ApiError(error.status, error.code, message, { error: { ...error.body.error, message } });
      });
    }),
  );

  const comments = program.command('comments').description('comments on statuses');
  examples(
    comments
      .command('create')
      .description('comment on a status (missing values are asked for on a terminal)')
      .option('--status <id>', 'the status to comment on (required)')
      .option('--content <text>', 'what to say (required)')
      .option('--user <user>', 'the author: id or nickname (default: you)'),
    'agora comments create --status 3f2a… --content "Count me in"',
  ).action(
    withContext<{ status?: string; content?: string; user?: string }>(async ({ client, out, names }, o) => {
      const [{ CreateCommentInput }, { askMissing, fieldCheck }] = await Promise.all([
        import('../../shared/schemas/content.js'),
        import('../prompts.js'),
      ]);
      const values = await askMissing(
        { status: o.status, content: o.content },
        {
          status: { flag: '--status', message: 'Status id' },
          content: { flag: '--content', message: 'Comment', check: fieldCheck(CreateCommentInput.shape.content) },
        },
      );
      const body = { user_id: o.user ?? 'me', status_id: values.status, content: values.content };
      await validateBody(CreateCommentInput, body, { user_id: '--user', status_id: '--status' });
      // A status's shortened id, as tables show it, is taken as everywhere.
      const { ID_LISTS } = await import('../names.js');
      [body.status_id] = await names.fullIds(ID_LISTS.status, [values.status!]);
      body.user_id = await userOrMe(client, names, o.user);
      await out.record(await client.post<Comment>('/comments', body), COMMENT_VIEW);
    }),
  );
  examples(comments.command('get').description('show one comment (Admins: a removed one too)').argument('<id>', "the comment's whole id"), 'agora comments get 01a2…').action(
    withContext(async ({ client, out }, _o, args) => {
      const [{ seg }, { wholeIds }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const [id] = wholeIds('comment', args);
      await out.record(await client.get<Comment>(`/comments/${seg(id!)}`), COMMENT_VIEW);
    }),
  );

  const likes = program.command('likes').description('likes of statuses and comments');
  examples(
    likes
      .command('create')
      .description('like a status or a comment (once)')
      .option('--status <id>', 'the status to like')
      .option('--comment <id>', 'the comment to like')
      .option('--user <user>', 'who likes: id or nickname (default: you)'),
    'agora likes create --status 3f2a…',
  ).action(
    withContext<{ status?: string; comment?: string; user?: string }>(async ({ client, out, names }, o) => {
      const { CreateLikeInput } = await import('../../shared/schemas/content.js');
      const body = { user_id: o.user ?? 'me', status_id: o.status, comment_id: o.comment };
      await validateBody(CreateLikeInput, body, { user_id: '--user', status_id: '--status or --comment' });
      const { ID_LISTS, wholeIds } = await import('../names.js');
      if (o.status) [body.status_id] = await names.fullIds(ID_LISTS.status, [o.status]);
      if (o.comment) [body.comment_id] = wholeIds('comment', [o.comment]);
      body.user_id = await userOrMe(client, names, o.user);
      await out.record(await client.post<Like>('/likes', body));
    }),
  );

  examples(
    paginationOptions(
      likes
        .command('list')
        .description('who liked a status or a comment, oldest first')
        .option('--status <id>', "the status's likes")
        .option('--comment <id>', "the comment's likes")
        .option('--user <user>', "only this user's like: id or nickname"),
    ),
    'agora likes list --status 3f2a…',
    'agora likes list --comment 01a2… --user ada',
  ).action(
    withContext<PageOptions & { status?: string; comment?: string; user?: string }>(async (ctx, o) => {
      const path = await likedPath(ctx.names, o);
      await showList(ctx, path, o.user ? { user_id: await ctx.names.resolve('user', o.user) } : {}, LIKE_COLUMNS, o);
    }),
  );
  examples(likes.command('get').description('show one like').argument('<id>', "the like's whole id"), 'agora likes get 01a2…').action(
    withContext(async ({ client, out }, _o, args) => {
      const [{ seg }, { wholeIds }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      await out.record(await client.get<Like>(`/likes/${seg(wholeIds('like', args)[0]!)}`));
    }),
  );

  examples(
    paginationOptions(
      program
        .command('stream')
        .description('the statuses of the users, pages and events a user follows, newest first')
        .option('--user <user>', 'whose stream: id or nickname (default: you; others need the Admins role)'),
    ),
    'agora stream',
    'agora stream --user linus --limit 50',
  ).action(
    withContext<PageOptions & { user?: string }>(async (ctx, o) => {
      const { seg } = await import('../../client/api-client.js');
      const userId = await userOrMe(ctx.client, ctx.names, o.user);
      await showList(ctx, `/users/${seg(userId)}/stream`, {}, STATUS_COLUMNS, o);
    }),
  );
}
