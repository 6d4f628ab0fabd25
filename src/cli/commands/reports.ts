import type { Command } from 'commander';
import type { Report } from '../../shared/schemas/reports.js';
import type { User } from '../../shared/schemas/users.js';
import { enumOption, eachRecord, examples, fewAtATime, idsFrom, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import type { Context } from '../context.js';
import type { Column, RecordView } from '../output.js';
import { checkedUntil, replacedNote, suspendQuestion } from '../suspensions.js';
import { userOrMe } from './content.js';
import { REPORT_ACTIONS, REPORT_REASONS, REPORT_STATES, REPORT_TARGET_TYPES, RESOLUTION_OF } from '../../shared/report-kinds.js';
import { selfCommand } from '../self-command.js';
import { firstWords } from '../safe-text.js';
import { unquoted } from '../queue/items.js';

/** Reports from the terminal (docs/api.md, "Moderating content and people"): create, list, get, resolve, dismiss. */

/**
 * A status or comment as questions and answers name it: `bob's status "first words…"`, `the status …` if its author
 * is unknown, by `id` when its words are not shown.
 */
export const contentLabel = (author: string | undefined, kind: 'status' | 'comment', text: string | null, id?: string) =>
  `${author ? `${author}'s` : 'the'} ${kind} ${text ? `"${firstWords(text)}"` : id}`;

const REPORT_COLUMNS: Column<Report>[] = [
  { header: 'id', value: (r) => r.id, id: true },
  { header: 'state', value: (r) => r.state },
  { header: 'reporter', value: (r) => r.user_id, name: ['user', (r) => r.user_id] },
  {
    header: 'target',
    value: (r) =>
      `${r.target_type} ${r.target_type === 'User' ? (r.target.user?.nickname ?? r.target_id) : (r.target.excerpt ?? unquoted(r.target, r.resolution))}`,
  },
  { header: 'reason', value: (r) => r.reason },
  { header: 'comment', value: (r) => r.comment ?? '' },
  { header: 'resolution', value: (r) => r.resolution ?? '' },
  { header: 'created', value: (r) => r.created_at },
];

/** A report: who reported it and who settled it by name, what it is about by its user, or its words and author. */
const REPORT_VIEW: RecordView<Report> = {
  names: { user_id: ['reporter', 'user'], resolved_by: ['resolved by', 'user'] },
  format: {
    // Removed or hidden, as `reports list` says it: a report resolved by a removal says removed, suspended author or not.
    target: (t: Report['target'], r: Report) =>
      t.type === 'User' ? (t.user?.nickname ?? t.id) : `${t.excerpt !== null ? `"${t.excerpt}"` : `${t.id} ${unquoted(t, r.resolution)}`}${t.user ? ` by ${t.user.nickname}` : ''}`,
  },
};

export function registerReportCommands(program: Command): void {
  const reports = program.command('reports').description('reports of statuses, comments and users, and settling them');
  examples(
    reports
      .command('create')
      .description('report a status, a comment or a user you can see (missing values are asked for on a terminal)')
      .addOption(enumOption('--target-type <type>', 'what is reported (required)', REPORT_TARGET_TYPES))
      .option('--target-id <id>', 'what is reported (required; a user: id or nickname; a status: its id or a prefix of it)')
      .addOption(enumOption('--reason <reason>', 'why (required)', REPORT_REASONS))
      .option('--comment <text>', 'what moderators should know (at most 1,000 characters)')
      .option('--user <user>', 'the reporter: id or nickname (default: you; Admins act for others)'),
    'agora reports create --target-type Status --target-id 3f2a… --reason spam',
    'agora reports create        # on a terminal: asks what is reported and why',
  ).action(
    withContext<{ targetType?: string; targetId?: string; reason?: string; comment?: string; user?: string }>(async (ctx, o) => {
      const [{ askMissing, fieldCheck, interactive }, { NameNotFoundError }, { UsageError }, { CreateReportInput }, { ApiError, ConnectionError }] = await Promise.all([
        import('../prompts.js'),
        import('../names.js'),
        import('../errors.js'),
        import('../../shared/schemas/reports.js'),
        import('../../client/api-client.js'),
      ]);
      // A comment given as a flag is checked before anything is asked or sent, as an answer typed would be.
      if (o.comment !== undefined) await validateBody(CreateReportInput.pick({ comment: true }), { comment: o.comment }, { comment: '--comment' });
      // On a terminal the target is looked up as soon as it is typed: a mistyped nickname is asked again at once.
      const targets = new Map<string, Promise<string>>();
      const target = (type: string | undefined, ref: string) => {
        const key = `${type}:${ref}`;
        if (!targets.has(key)) targets.set(key, targetIdOf(ctx, type, ref, interactive()));
        return targets.get(key)!;
      };
      const values = await askMissing(
        { targetType: o.targetType, targetId: o.targetId, reason: o.reason, comment: o.comment },
        {
          targetType: { flag: '--target-type', message: 'What is reported', choices: [...REPORT_TARGET_TYPES] },
          targetId: {
            flag: '--target-id',
            message: (answers) =>
              answers.targetType === 'User' ? 'The user (id or nickname)' : answers.targetType === 'Status' ? "The status's id (or its prefix)" : "The comment's id",
            check: async (v, answers) => {
              if (!v.trim()) return 'an id is needed';
              const type = answers.targetType as string | undefined;
              return target(type, v).then(
                () => undefined,
                (error: unknown) => {
                  if (error instanceof NameNotFoundError || error instanceof UsageError) return error.message;
                  // The server out of reach, the key refused: said at once, not after the other questions (thrown
                  // here, inquirer would lose it). Enter tries again where that may help.
                  targets.delete(`${type}:${v}`);
                  const passing = error instanceof ConnectionError || (error instanceof ApiError && error.status >= 500);
                  return `${(error as Error).message} (${passing ? '⏎ to try again, ' : ''}Ctrl-C to stop)`;
                },
              );
            },
          },
          reason: { flag: '--reason', message: 'Why', choices: [...REPORT_REASONS] },
          comment: { flag: '--comment', message: 'What moderators should know', optional: true, check: fieldCheck(CreateReportInput.shape.comment) },
        },
      );
      const targetId = await target(values.targetType, values.targetId!);
      const reporter = await userOrMe(ctx.client, ctx.names, o.user);
      const body = { user_id: reporter, target_type: values.targetType, target_id: targetId, reason: values.reason, comment: values.comment };
      await ctx.out.record(await ctx.client.post<Report>('/reports', body), REPORT_VIEW);
    }),
  );
  examples(
    paginationOptions(
      reports
        .command('list')
        .description('reports oldest first: yours, those on your pages, or all (Admins)')
        .addOption(enumOption('--state <state>', 'only reports in this state', REPORT_STATES))
        .addOption(enumOption('--target-type <type>', 'only reports on this kind of thing', REPORT_TARGET_TYPES))
        .option('--target-id <id>', 'reports on this target (a user: id or nickname)')
        .option('--user <user>', 'only reports this user made (id or nickname)'),
    ),
    'agora reports list --state open --target-type Status --all --fields id | agora reports resolve - --action remove',
  ).action(
    withContext<PageOptions & { state?: string; targetType?: string; targetId?: string; user?: string }>(async (ctx, o) => {
      const query: Record<string, string> = {};
      if (o.user) query.user_id = await ctx.names.resolve('user', o.user);
      if (o.state) query.state = o.state;
      if (o.targetType) query.target_type = o.targetType;
      if (o.targetId) query.target_id = await targetIdOf(ctx, o.targetType, o.targetId);
      await showList(ctx, '/reports', query, REPORT_COLUMNS, o);
    }),
  );
  examples(reports.command('get').description('show one report').argument('<id>', 'report id'), 'agora reports get 3f2a…').action(
    withContext(async (ctx, _o, [id]) => {
      const [{ seg }, { ID_LISTS }] = await Promise.all([import('../../client/api-client.js'), import('../names.js')]);
      const [full] = await ctx.names.fullIds(ID_LISTS.report, [id!]);
      await ctx.out.record(await ctx.client.get<Report>(`/reports/${seg(full!)}`), REPORT_VIEW);
    }),
  );
  examples(
    reports
      .command('resolve')
      .description(
        'resolve reports, agreeing with them (and every open report on the same targets): remove the content, suspend its author, or none (nothing done here; dismiss says the report was wrong)',
      )
      .argument('<id...>', 'report ids, or - to read them from standard input')
      .addOption(
        enumOption('--action <action>', 'remove: take the content down; suspend: the user reported or the author (Admins); none: agree, do nothing here (asked for on a terminal)', REPORT_ACTIONS),
      )
      .option('--reason <text>', 'the suspension reason (required to suspend), or the removal reason')
      .option('--until <date>', 'when a suspension ends by itself (ISO 8601); default: until lifted')
      .option('-y, --yes', 'remove or suspend without asking'),
    'agora reports resolve 3f2a… --action remove',
    'agora reports list --state open --target-type Status --all --fields id | agora reports resolve - --action remove',
  ).action(
    withContext<{ action?: (typeof REPORT_ACTIONS)[number]; reason?: string; until?: string; yes?: boolean }>(async (ctx, o, args) => {
      const [{ ResolveReportInput }, { SuspendUserInput }, { UsageError }, { askMissing, fieldCheck, interactive }] = await Promise.all([
        import('../../shared/schemas/reports.js'),
        import('../../shared/schemas/suspensions.js'),
        import('../errors.js'),
        import('../prompts.js'),
      ]);
      // The ids are read once the options are checked (unless a question needs them): a mistake in them is exit 2
      // also when nothing is piped in, not an empty queue's exit 0 until the day there is something to resolve.
      let refs: string[] | undefined;
      // On a terminal, the question says what one report is about: the action is not picked blind.
      let about = 'it';
      // A user cannot be removed: the menu for a report on one does not offer it.
      let choices: string[] = [...REPORT_ACTIONS];
      if (o.action === undefined && interactive()) refs = await idsFrom(args);
      if (refs?.length === 1) {
        const { ID_LISTS } = await import('../names.js');
        const [id] = await ctx.names.fullIds(ID_LISTS.report, refs);
        const reported = await reportedAs(ctx, id!);
        about = `the report on ${reported.text}`;
        if (reported.user) choices = choices.filter((choice) => choice !== 'remove');
      }
      const { action } = await askMissing({ action: o.action }, { action: { flag: '--action', message: `What is done about ${about}`, choices } });
      if (o.until !== undefined && action !== 'suspend') throw new UsageError('--until is for --action suspend only');
      await checkedUntil(o.until);
      // Nothing keeps a reason for `none`: said, not dropped.
      if (o.reason !== undefined && action === 'none') throw new UsageError('--reason is for --action remove or suspend: none keeps no reason');
      const { reason } =
        action === 'suspend'
          ? await askMissing({ reason: o.reason }, { reason: { flag: '--reason', message: 'Why they are suspended (told to them)', check: fieldCheck(SuspendUserInput.shape.reason) } })
          : o;
      const body = await validateBody(ResolveReportInput, { action, reason, until: o.until });
      await settle(ctx, refs ?? (await idsFrom(args)), { verb: 'resolve', body, action: action!, yes: o.yes });
    }),
  );
  examples(
    reports.command('dismiss').description('dismiss reports (and every open report on the same targets)').argument('<id...>', 'report ids, or - for standard input'),
    'agora reports dismiss 3f2a…',
  ).action(withContext(async (ctx, _o, args) => settle(ctx, await idsFrom(args), { verb: 'dismiss' })));
}

/** A report's target as the API takes it: a user's nickname, or a status's id prefix, made a full id. */
/**
 * The id of what `ref` names. `known`: also ask the server that a whole id names a status or comment the caller may
 * see (the prompt checks each answer as it is typed; a script's POST finds out anyway).
 */
async function targetIdOf(ctx: Context, type: string | undefined, ref: string, known = false): Promise<string> {
  if (type === 'User') return ctx.names.resolve('user', ref);
  const [{ ID, ID_LISTS, NameNotFoundError }, { UsageError }, { ApiError, seg }] = await Promise.all([
    import('../names.js'),
    import('../errors.js'),
    import('../../client/api-client.js'),
  ]);
  const value = ref.trim();
  if (type === undefined && !ID.test(value))
    throw new UsageError(`--target-id ${ref} is not a whole id: say what it names with --target-type (a user's nickname, a status's id prefix)`);
  if (type === 'Comment' && !ID.test(value)) throw new UsageError(`${value} is not a comment's whole id (32 characters)`);
  const id = type === 'Status' ? (await ctx.names.fullIds(ID_LISTS.status, [value]))[0]! : value;
  if (known && ID.test(value) && type !== undefined) {
    const what = type === 'Status' ? 'status' : 'comment';
    const content = await ctx.client.get<{ removed_at?: string }>(`/${what === 'status' ? 'statuses' : 'comments'}/${seg(id)}`).catch((error: unknown) => {
      throw error instanceof ApiError && error.status === 404 ? new NameNotFoundError(`No ${what} you may see has the id ${id}`) : error;
    });
    // An Admin still reads removed content, which cannot be reported.
    if (content.removed_at) throw new NameNotFoundError(`The ${what} ${id} was already removed (${content.removed_at})`);
  }
  return id;
}

/** An API error, its message naming the report (what else it carries, such as the profile to log in again, kept). */
const naming = (error: Error, what: string, message = error.message) => Object.assign(error, { message: `${what}: ${message}` });

type Settling =
  | { verb: 'resolve'; body: unknown; action: (typeof REPORT_ACTIONS)[number]; yes?: boolean }
  | { verb: 'dismiss' };

/**
 * Resolves or dismisses each report. Settling one settles every open report on its target, so a report of a list
 * read before (`reports list … | reports resolve -`) may already be settled the same way by an earlier one of
 * the run: said, not a failure. One settled otherwise is refused, named, and the run goes on (`eachRecord`).
 */
async function settle(ctx: Context, refs: string[], how: Settling): Promise<void> {
  const [{ seg, ApiError }, { ID_LISTS }, { confirmOrStop, leftOut, mayAsk, namedList }] = await Promise.all([
    import('../../client/api-client.js'),
    import('../names.js'),
    import('../confirm.js'),
  ]);
  const ids = await ctx.names.fullIds(ID_LISTS.report, refs);
  const acts = how.verb === 'resolve' && how.action !== 'none';
  const suspending = how.verb === 'resolve' && how.action === 'suspend' ? (how.body as { reason: string; until?: string }) : undefined;
  const asking = acts && mayAsk(how.yes);
  if (asking) {
    // Each report read first: what the server will refuse is not asked about, but said after (a user cannot be
    // removed; no one suspends themself), and the question names what the others are about.
    const reported = new Map<string, Reported>();
    await fewAtATime(ids, (id) =>
      reportedAs(ctx, id).then(
        (r) => void reported.set(id, r),
        // A report the caller may not read is refused after; any other failure (no answer) stops the run here.
        (error: unknown) => {
          if (!(error instanceof ApiError && (error.status === 403 || error.status === 404))) throw error;
        },
      ),
    );
    const me = suspending ? (await ctx.client.get<{ id: string }>('/me')).id : undefined;
    const live = ids.filter((id) => {
      const r = reported.get(id);
      return r !== undefined && (how.action === 'remove' ? !r.user : r.person?.id !== me);
    });
    if (live.length === 1 && ids.length === 1) {
      const one = reported.get(live[0]!)!;
      const who = one.user ? one.text : one.person ? `${one.person.nickname}, the author of ${one.what},` : `the author of ${one.what}`;
      await confirmOrStop(how.action === 'remove' ? `Remove ${one.text}?` : suspendQuestion(who, one.person?.suspension, suspending!), false);
    } else if (live.length > 0) {
      const what = [...new Set(live.map((id) => (how.action === 'remove' ? reported.get(id)!.text : (reported.get(id)!.person?.nickname ?? `the author of ${reported.get(id)!.what}`))))];
      const reports = live.length === 1 ? '1 report is' : `${live.length} reports are`;
      const verb = how.action === 'remove' ? `Remove what ${reports} about` : `Suspend whoever ${reports} about`;
      await confirmOrStop(`${verb}: ${namedList(what)}?${leftOut(ids.length - live.length)}`, false);
    }
  }
  // Those this run suspended: a second report on them replaces a suspension just made the same, not one in force before.
  const suspendedHere = new Set<string>();
  const done = how.verb === 'dismiss' ? 'dismissed' : `resolved (${how.action})`;
  await eachRecord(ctx, ids, (id) => `Report ${id}`, async (id) => {
    // Alone, the run's error names the report; among several, `eachRecord` names it in its line.
    const named = (error: Error, message = error.message) => (ids.length === 1 ? naming(error, `Report ${id}`, message) : Object.assign(error, { message }));
    try {
      // A suspension in force is replaced, as `users suspend` does: asked at a terminal (one report was, above), said after.
      const person = suspending ? (await reportedAs(ctx, id)).person : null;
      const was = person && !suspendedHere.has(person.id) ? person.suspension : null;
      if (was && asking && ids.length > 1) await confirmOrStop(suspendQuestion(person!.nickname, was, suspending!), false);
      const report = await ctx.client.put<Report>(`/reports/${seg(id)}/${how.verb}`, how.verb === 'resolve' ? how.body : undefined);
      if (person) suspendedHere.add(person.id);
      ctx.out.done(`Report ${id} ${done}`, report);
      if (was) ctx.out.note(replacedNote(person!.nickname, was));
      // A suspension hides the author's content while it lasts; it does not take it down.
      if (how.verb === 'resolve' && how.action === 'suspend' && report.target_type !== 'User') {
        const kind = report.target_type === 'Status' ? 'status' : 'comment';
        ctx.out.note(`The ${kind} stays, hidden from all but Admins while its author is suspended: ${selfCommand()} ${kind === 'status' ? 'statuses' : 'comments'} delete ${report.target_id} removes it`);
      }
    } catch (error) {
      if (!(error instanceof ApiError) || error.status === 401) throw error;
      if (error.status !== 409) throw named(error);
      const now = await ctx.client.get<Report>(`/reports/${seg(id)}`);
      // Still open: refused for another reason (the last Admin, oneself).
      if (now.state === 'open') throw named(error);
      const was = `${now.state}${now.resolution && now.resolution !== 'none' ? ` (${now.resolution})` : ''}`;
      const same = how.verb === 'dismiss' ? now.state === 'dismissed' : now.state === 'resolved' && now.resolution === RESOLUTION_OF[how.action];
      if (!same) throw named(error, `it was already ${was}: left as it is`);
      ctx.out.done(`Report ${id} already ${was}`, now);
    }
  });
}

/**
 * What one report is about, for a question: `bob's status "first…"` (`what`: `the status "first…"`), or a user's
 * nickname; and `person`, whom a suspension would be of (the user reported, or the content's author; null when no
 * longer readable).
 */
type Reported = { text: string; what: string; user: boolean; person: User | null };
/** What each report is about, read once a run: the question, the action's question and the act all name it. */
const reportedInRun = new WeakMap<Context, Map<string, Promise<Reported>>>();
function reportedAs(ctx: Context, id: string): Promise<Reported> {
  const run = reportedInRun.get(ctx) ?? new Map<string, Promise<Reported>>();
  reportedInRun.set(ctx, run);
  const reported = run.get(id) ?? readReported(ctx, id);
  run.set(id, reported);
  return reported;
}

async function readReported(ctx: Context, id: string): Promise<Reported> {
  const { seg } = await import('../../client/api-client.js');
  const report = await ctx.client.get<Report>(`/reports/${seg(id)}`);
  // The user reported, or the content's author.
  const person = report.target.user;
  if (report.target_type === 'User') {
    const text = person?.nickname ?? `user ${report.target_id}`;
    return { text, what: text, user: true, person };
  }
  const kind = report.target_type === 'Status' ? 'status' : 'comment';
  const named = (author?: string) => contentLabel(author, kind, report.target.excerpt, report.target_id);
  return { text: named(person?.nickname), what: named(), user: false, person };
}
