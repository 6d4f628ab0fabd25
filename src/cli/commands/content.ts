import type { Command } from 'commander';
import type { ListResult } from '../../shared/schemas/common.js';
import type { Comment, Like, Status } from '../../shared/schemas/content.js';
import { pageQuery, paginationOptions, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

export const STATUS_COLUMNS: Column<Status>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'author', value: (s) => s.user.nickname },
  { header: 'content', value: (s) => s.content },
  { header: 'page', value: (s) => s.page_id },
  { header: 'event', value: (s) => s.event_id },
  { header: 'comments', value: (s) => s.comments_count },
  { header: 'likes', value: (s) => s.likes_count },
  { header: 'created', value: (s) => s.created_at },
];

const COMMENT_COLUMNS: Column<Comment>[] = [
  { header: 'id', value: (c) => c.id },
  { header: 'status', value: (c) => c.status_id },
  { header: 'author', value: (c) => c.user.nickname },
  { header: 'content', value: (c) => c.content },
  { header: 'created', value: (c) => c.created_at },
];

const LIKE_COLUMNS: Column<Like>[] = [
  { header: 'id', value: (l) => l.id },
  { header: 'user', value: (l) => l.user_id },
  { header: 'status', value: (l) => l.status_id },
  { header: 'comment', value: (l) => l.comment_id },
  { header: 'created', value: (l) => l.created_at },
];

const me = async (client: { get<T>(path: string): Promise<T> }, user?: string) =>
  user ?? (await client.get<{ id: string }>('/me')).id;

export function registerContentCommands(program: Command): void {
  const statuses = program.command('statuses').description('statuses: on a profile, in a page, or in an event');
  statuses
    .command('create')
    .description("post a status on your profile, in a page you are in, or in an event's conversation")
    .requiredOption('--content <text>', 'what to say')
    .option('--page-id <id>', 'post in this page')
    .option('--event-id <id>', "post in this event's conversation")
    .option('--user <id>', 'the author (default: you)')
    .action(
      withContext<{ content: string; pageId?: string; eventId?: string; user?: string }>(async ({ client, out }, o) => {
        const { CreateStatusInput } = await import('../../shared/schemas/content.js');
        const body = { user_id: o.user ?? 'me', content: o.content, page_id: o.pageId, event_id: o.eventId };
        await validateBody(CreateStatusInput, body, { user_id: '--user', page_id: '--page-id', event_id: '--event-id' });
        body.user_id = await me(client, o.user);
        await out.record(await client.post<Status>('/statuses', body), STATUS_COLUMNS);
      }),
    );
  statuses
    .command('get')
    .description('show one status')
    .argument('<id>', 'status id')
    .action(
      withContext(async ({ client, out }, _o, [id]) => {
        const { seg } = await import('../../client/api-client.js');
        await out.record(await client.get<Status>(`/statuses/${seg(id!)}`), STATUS_COLUMNS);
      }),
    );
  paginationOptions(statuses.command('comments').description('the comments on a status, oldest first').argument('<id>', 'status id')).action(
    withContext<PageOptions>(async ({ client, out }, o, [id]) => {
      const { seg } = await import('../../client/api-client.js');
      await out.list(await client.get<ListResult<Comment>>(`/statuses/${seg(id!)}/comments`, pageQuery(o)), COMMENT_COLUMNS, pageQuery(o));
    }),
  );

  const comments = program.command('comments').description('comments on statuses');
  comments
    .command('create')
    .description('comment on a status')
    .requiredOption('--status <id>', 'the status to comment on')
    .requiredOption('--content <text>', 'what to say')
    .option('--user <id>', 'the author (default: you)')
    .action(
      withContext<{ status: string; content: string; user?: string }>(async ({ client, out }, o) => {
        const { CreateCommentInput } = await import('../../shared/schemas/content.js');
        const body = { user_id: o.user ?? 'me', status_id: o.status, content: o.content };
        await validateBody(CreateCommentInput, body, { user_id: '--user', status_id: '--status' });
        body.user_id = await me(client, o.user);
        await out.record(await client.post<Comment>('/comments', body), COMMENT_COLUMNS);
      }),
    );

  const likes = program.command('likes').description('likes of statuses and comments');
  likes
    .command('create')
    .description('like a status or a comment (once)')
    .option('--status <id>', 'the status to like')
    .option('--comment <id>', 'the comment to like')
    .option('--user <id>', 'who likes (default: you)')
    .action(
      withContext<{ status?: string; comment?: string; user?: string }>(async ({ client, out }, o) => {
        const { CreateLikeInput } = await import('../../shared/schemas/content.js');
        const body = { user_id: o.user ?? 'me', status_id: o.status, comment_id: o.comment };
        await validateBody(CreateLikeInput, body, { user_id: '--user', status_id: '--status or --comment' });
        body.user_id = await me(client, o.user);
        await out.record(await client.post<Like>('/likes', body), LIKE_COLUMNS);
      }),
    );

  paginationOptions(
    program
      .command('stream')
      .description('the statuses of the users, pages and events a user follows, newest first')
      .option('--user <id>', 'whose stream (default: you; others need the Admins role)'),
  ).action(
    withContext<PageOptions & { user?: string }>(async ({ client, out }, o) => {
      const { seg } = await import('../../client/api-client.js');
      const userId = await me(client, o.user);
      await out.list(await client.get<ListResult<Status>>(`/users/${seg(userId)}/stream`, pageQuery(o)), STATUS_COLUMNS, pageQuery(o));
    }),
  );
}
