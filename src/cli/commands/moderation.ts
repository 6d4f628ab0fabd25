import type { Command } from 'commander';
import type { Comment, Like, Status } from '../../shared/schemas/content.js';
import type { User } from '../../shared/schemas/users.js';
import { doneRecord, eachRecord, enumOption, examples, fewAtATime, idsFrom, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';
import type { RemovedContent } from '../../shared/schemas/removals.js';
import type { Context } from '../context.js';
import { likedPath, STATUS_COLUMNS, userOrMe } from './content.js';
import { checkedUntil, replacedNote, suspendQuestion } from '../suspensions.js';
import { USER_VIEW } from './users.js';
import { contentLabel, registerReportCommands } from './reports.js';

/** Moderation from the terminal (docs/api.md, "Moderating content and people"): statuses list|delete, comments|likes delete, suspensions; reports in reports.ts. */

/** An existing group: a run builds only the group it names, so the others may be absent. */
const group = (program: Command, name: string) => program.commands.find((c) => c.name() === name);

/** "bob's status "first…" in Garden Club": what a removal takes away, named for the question. */
async function describeStatus(ctx: Context, status: Status): Promise<string> {
  const { seg } = await import('../../client/api-client.js');
  const where = status.page_id
    ? ` in ${(await ctx.client.get<{ name: string }>(`/pages/${seg(status.page_id)}`)).name}`
    : status.event_id
      ? ` in ${(await ctx.client.get<{ name: string }>(`/events/${seg(status.event_id)}`)).name}`
      : '';
  return `${contentLabel(status.user.nickname, 'status', status.content)}${where}`;
}

/**
 * What a removal takes away, read first so that the question and what is said after name whose it was. Content
 * already removed (which Admins still read) is refused here, naming whose it was, rather than asked about or sent:
 * the server's own refusal says only "This comment". With `--json` and no question, the server's error body is the
 * one printed.
 */
async function removedLabel(ctx: Context, kind: 'statuses' | 'comments', id: string, asking: boolean, place = asking): Promise<string> {
  const { seg, ApiError } = await import('../../client/api-client.js');
  const noun = kind === 'statuses' ? 'status' : 'comment';
  // Not the caller's to read may still be theirs to remove (an event's conversation in their page they did not answer,
  // a role without statuses.show): named by its id, and the DELETE decides.
  const content = await ctx.client.get<Status | Comment>(`/${kind}/${seg(id)}`).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 403) return undefined;
    throw error;
  });
  if (!content) return `${noun} ${id}`;
  if (content.removed_at && (asking || !ctx.out.json)) {
    const message = `${contentLabel(content.user.nickname, noun, content.content)} was already removed (${content.removed_at})`;
    throw new ApiError(409, 'conflict', message, { error: { code: 'conflict', message } });
  }
  // A status's place only for a question: a script's run spends no call on it.
  return place && kind === 'statuses' ? describeStatus(ctx, content as Status) : contentLabel(content.user.nickname, noun, content.content);
}

async function removal(ctx: Context, kind: 'statuses' | 'comments', id: string, o: { yes?: boolean; reason?: string }) {
  const [{ seg }, { confirmOrStop, mayAsk }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
  const what = await removedLabel(ctx, kind, id, mayAsk(o.yes));
  await confirmOrStop(`Remove ${what}?`, o.yes);
  // The reason goes in the query: a DELETE's body is dropped by some proxies.
  await ctx.client.delete(`/${kind}/${seg(id)}${o.reason ? `?reason=${encodeURIComponent(o.reason)}` : ''}`);
  ctx.out.done(`Removed ${what}`, doneRecord(id, 'removed'));
}

export function registerModerationCommands(program: Command): void {
  const statuses = group(program, 'statuses');
  if (statuses) registerContentModeration(program, statuses);
  const users = group(program, 'users');
  if (users) registerSuspensionCommands(users);
  if (!group(program, 'reports')) registerReportCommands(program);
}

function registerContentModeration(program: Command, statuses: Command): void {
  examples(
    paginationOptions(
      statuses
        .command('list')
        .description('statuses newest first, those you may see')
        .option('--user <user>', 'by this author (id or nickname)')
        .option('--page-id <page>', 'in this page (id or slug)')
        .option('--event-id <event>', "in this event's conversation (id or slug)"),
    ),
    'agora statuses list --page-id garden-club',
  ).action(
    withContext<PageOptions & { user?: string; pageId?: string; eventId?: string }>(async (ctx, o) => {
      const query: Record<string, string> = {};
      if (o.user) query.user_id = await ctx.names.resolve('user', o.user);
      if (o.pageId) query.page_id = await ctx.names.resolve('page', o.pageId);
      if (o.eventId) query.event_id = await ctx.names.resolve('event', o.eventId);
      await showList(ctx, '/statuses', query, STATUS_COLUMNS, o);
    }),
  );
  for (const [name, kind] of [
    [statuses, 'statuses'],
    [group(program, 'comments')!, 'comments'],
  ] as const)
    examples(
      name
        .command('delete')
        .description(`remove a ${kind === 'statuses' ? 'status (with its comments and likes)' : 'comment'}: its author, the page's administrators, Admins`)
        .argument('<id...>', `${kind === 'statuses' ? 'status ids' : 'whole comment ids (as `statuses comments` shows them)'}, or - to read them from standard input`)
        .option('--reason <text>', 'why (kept with it; Admins read it)')
        .option('-y, --yes', 'do not ask for confirmation'),
      `agora ${kind} delete 3f2a… --reason spam --yes`,
      `agora ${kind} delete - --yes < ids.txt`,
    ).action(
      withContext<{ yes?: boolean; reason?: string }>(async (ctx, o, args) => {
        // A status's shortened id (as tables show it) is resolved among the statuses the caller may see, all at once.
        const { ID_LISTS, wholeIds } = await import('../names.js');
        const refs = await idsFrom(args);
        const ids = kind === 'statuses' ? await ctx.names.fullIds(ID_LISTS.status, refs) : wholeIds('comment', refs);
        const { asked, refused } = await askOnceForAll(ids, o.yes, 'Remove', kind, (id, shown) => removedLabel(ctx, kind, id, true, shown));
        await eachRecord(ctx, ids, (id) => `${kind === 'statuses' ? 'Status' : 'Comment'} ${id}`, async (id) => {
          if (refused.has(id)) throw refused.get(id);
          await removal(ctx, kind, id, { ...o, yes: o.yes || asked });
        });
      }),
    );

  examples(
    group(program, 'likes')!
      .command('delete')
      .description('take likes back (your own; Admins any): by id, or the like of a status or comment')
      .argument('[id...]', 'whole like ids, or - to read them from standard input')
      .option('--status <id>', 'your like of this status (with --user: theirs)')
      .option('--comment <id>', 'your like of this comment (with --user: theirs)')
      .option('--user <user>', 'whose like, with --status or --comment: id or nickname (default: you)')
      .option('-y, --yes', 'do not ask for confirmation'),
    'agora likes delete --status 3f2a…',
    'agora likes delete 01a2… --yes',
  ).action(
    withContext<{ yes?: boolean; status?: string; comment?: string; user?: string }>(async (ctx, o, args) => {
      const [{ seg }, { confirmOrStop, mayAsk }, { wholeIds }, { UsageError }] = await Promise.all([
        import('../../client/api-client.js'),
        import('../confirm.js'),
        import('../names.js'),
        import('../errors.js'),
      ]);
      const byTarget = o.status !== undefined || o.comment !== undefined;
      if (o.user && !byTarget) throw new UsageError('--user goes with --status or --comment');
      if (!byTarget && args.length === 0) throw new UsageError('give like ids, or --status or --comment');
      if (byTarget && args.length > 0) throw new UsageError('give like ids or --status/--comment, not both');
      const ids = byTarget ? [await likeOf(ctx, o)] : wholeIds('like', await idsFrom(args));
      const named = async (id: string) => describeLike(ctx, await ctx.client.get<Like>(`/likes/${seg(id)}`));
      const { asked, labels, refused } = await askOnceForAll(ids, o.yes, 'Take back', 'likes', named);
      const yes = o.yes || asked;
      await eachRecord(ctx, ids, (id) => `Like ${id}`, async (id) => {
        if (refused.has(id)) throw refused.get(id);
        // Named for a person only (a script's run spends no call on it).
        const what = labels.get(id) ?? (mayAsk(yes) ? await named(id) : `like ${id}`);
        await confirmOrStop(`Take back ${what}?`, yes);
        await ctx.client.delete(`/likes/${seg(id)}`);
        ctx.out.done(`Took back ${what}`, doneRecord(id, 'deleted'));
      });
    }),
  );
}

/**
 * Several records, one question naming the first of them (`Remove 3 statuses: bob's status "first…", ann's status
 * "hi" and 1 more?`), asked when a person watches. Each is read first (`label(id, shown)`: `shown` for the few the
 * question names, which may cost more calls): one that cannot be acted on (unknown, already removed) is left out of
 * the question and its read's refusal kept in `refused`, for its act to say. `asked` is whether it asked (each record
 * then goes unasked); `labels` names each record read. A record named twice is one, as `eachRecord` acts on it once.
 */
async function askOnceForAll(
  named: string[],
  yes: boolean | undefined,
  verb: string,
  noun: 'statuses' | 'comments' | 'likes',
  label: (id: string, shown: boolean) => Promise<string>,
): Promise<{ asked: boolean; labels: Map<string, string>; refused: Map<string, unknown> }> {
  const { confirmOrStop, leftOut, mayAsk, namedList } = await import('../confirm.js');
  const ids = [...new Set(named)];
  const labels = new Map<string, string>();
  const refused = new Map<string, unknown>();
  if (ids.length < 2 || !mayAsk(yes)) return { asked: false, labels, refused };
  await fewAtATime(ids, (id) => label(id, false).then((l) => labels.set(id, l), (error: unknown) => refused.set(id, error)));
  const live = ids.filter((id) => labels.has(id));
  if (live.length === 0) return { asked: true, labels, refused };
  const shown = live.length <= 3 ? live : live.slice(0, 2);
  const names = await Promise.all(shown.map((id) => label(id, true).catch(() => labels.get(id)!)));
  const count = live.length === 1 ? '' : `${live.length} ${noun}: `;
  await confirmOrStop(`${verb} ${count}${namedList(names, live.length)}?${leftOut(refused.size)}`, yes);
  return { asked: true, labels, refused };
}

/** The id of a user's (default: the caller's) like of the status or comment named; a failure when there is none. */
async function likeOf(ctx: Context, o: { status?: string; comment?: string; user?: string }): Promise<string> {
  const path = await likedPath(ctx.names, o);
  const userId = await userOrMe(ctx.client, ctx.names, o.user);
  const { items } = await ctx.client.get<{ items: Like[] }>(path, { user_id: userId });
  if (!items[0]) throw new Error(`${o.user ?? 'you'} ${o.user ? 'does' : 'do'} not like this ${o.status ? 'status' : 'comment'}`);
  return items[0].id;
}

/** "ada's like of bob's status "first…"": what an unlike takes back, named for the question. */
async function describeLike(ctx: Context, like: Like): Promise<string> {
  const { seg } = await import('../../client/api-client.js');
  const kind = like.status_id ? 'status' : 'comment';
  const id = like.status_id ?? like.comment_id!;
  // What was liked may be closed to its liker now (a page they left, a suspended author): named by its id then.
  const liked = await ctx.client.get<Status | Comment>(`/${kind === 'status' ? 'statuses' : 'comments'}/${seg(id)}`).catch(() => undefined);
  return `${like.user.nickname}'s like of ${liked ? contentLabel(liked.user.nickname, kind, liked.content) : `the ${kind} ${id}`}`;
}

function registerSuspensionCommands(users: Command): void {
  examples(
    users
      .command('suspend')
      .description("suspend a user (Admins): their keys are refused and their content hidden until it ends")
      .argument('<user>', 'id or nickname')
      .option('--reason <text>', 'why (told to them with every refused request; asked for on a terminal)')
      .option('--until <date>', 'when it ends by itself (ISO 8601); default: until lifted')
      .option('-y, --yes', 'do not ask for confirmation'),
    'agora users suspend bob --reason "spam" --until 2026-12-31',
  ).action(
    withContext<{ reason?: string; until?: string; yes?: boolean }>(async (ctx, o, [ref]) => {
      const [{ seg }, { confirmOrStop }, { SuspendUserInput }, { askMissing, fieldCheck }] = await Promise.all([
        import('../../client/api-client.js'),
        import('../confirm.js'),
        import('../../shared/schemas/suspensions.js'),
        import('../prompts.js'),
      ]);
      // `--until` checked before any request (exit 2); the user found before a reason is asked for, so a mistyped
      // one costs no typing.
      await checkedUntil(o.until);
      const id = await ctx.names.resolve('user', ref!);
      const { reason } = await askMissing({ reason: o.reason }, { reason: { flag: '--reason', message: 'Why (told to them)', check: fieldCheck(SuspendUserInput.shape.reason) } });
      const body = await validateBody(SuspendUserInput, { reason, until: o.until });
      const { nickname, suspension: was } = await ctx.client.get<User>(`/users/${seg(id)}`);
      await confirmOrStop(suspendQuestion(nickname, was, body), o.yes);
      const user = await ctx.client.put<User>(`/users/${seg(id)}/suspension`, body);
      if (was) ctx.out.note(replacedNote(nickname, was));
      await ctx.out.record(user, USER_VIEW);
    }),
  );
  examples(users.command('unsuspend').description("lift a user's suspension (Admins)").argument('<user>', 'id or nickname'), 'agora users unsuspend bob').action(
    withContext(async (ctx, _o, [ref]) => {
      const { seg } = await import('../../client/api-client.js');
      const id = await ctx.names.resolve('user', ref!);
      // The API lifts a suspension that is not there as one that is (200, the user); its Suspension-Lifted header says
      // which, as the lift itself found it (no read before it, which a lift or suspension in between would belie).
      const { data: user, lifted } = await ctx.client.answer<User>('DELETE', `/users/${seg(id)}/suspension`);
      if (lifted === false) ctx.out.note(`${user.nickname} was not suspended.`);
      await ctx.out.record(user, USER_VIEW);
    }),
  );
}

const REMOVED_COLUMNS: Column<RemovedContent>[] = [
  // Whole: a comment's id is taken back only whole (`comments get`), and a status's beside it reads alike.
  { header: 'id', value: (r) => r.id, id: 'whole' },
  { header: 'type', value: (r) => r.target_type },
  { header: 'author', value: (r) => r.user_id, name: ['user', (r) => r.user_id] },
  { header: 'when', value: (r) => r.removed_at },
  { header: 'removed by', value: (r) => r.removed_by, name: ['user', (r) => r.removed_by] },
  { header: 'reason', value: (r) => r.removal_reason ?? '' },
  // Kept when a narrow terminal leaves out when, by whom and why: a list of removals that shows none of what went says nothing.
  { header: 'content', value: (r) => r.content, outlasts: true },
];

/** `agora removed list`: removed statuses and comments, newest removal first, with who removed them and why (Admins). */
export function registerRemovedCommands(program: Command): void {
  const removed = program.command('removed').description('removed statuses and comments, kept for Admins');
  examples(
    paginationOptions(
      removed
        .command('list')
        .description('list removed content, newest removal first (Admins)')
        .addOption(enumOption('--target-type <type>', 'only statuses, or only comments', ['Status', 'Comment']))
        .option('--user <user>', 'only content by this author (id or nickname)')
        .option('--removed-by <user>', 'only content this user removed (id or nickname)'),
    ),
    'agora removed list --user bob',
    'agora removed list --removed-by ada --target-type Comment --all',
  ).action(
    withContext<PageOptions & { targetType?: string; user?: string; removedBy?: string }>(async (ctx, o) => {
      const query: Record<string, string> = {};
      if (o.targetType) query.target_type = o.targetType;
      if (o.user) query.user_id = await ctx.names.resolve('user', o.user);
      if (o.removedBy) query.removed_by = await ctx.names.resolve('user', o.removedBy);
      await showList(ctx, '/removed_content', query, REMOVED_COLUMNS, o);
    }),
  );
}
