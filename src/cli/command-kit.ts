import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Query } from '../client/api-client.js';
import type { Context, GlobalOptions } from './context.js';
import type { Column } from './output.js';
import { apiErrorText, credentialsRefused, NothingToDoError, UsageError } from './errors.js';
import { fetchList, type PageOptions } from './list-walk.js';

export { fetchList, pageQuery, type PageOptions } from './list-walk.js';

/**
 * The pieces every command file uses. Kept free of heavy imports: the client, the output and zod load
 * inside the action, so that `agora --help` and `agora --version` start fast.
 */
export function withContext<O>(run: (ctx: Context, options: O, args: string[]) => Promise<void>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const options = command.opts() as O;
    const { createContext } = await import('./context.js');
    const ctx = await createContext(command.optsWithGlobals() as GlobalOptions);
    try {
      await run(ctx, options, command.args);
    } catch (error) {
      // A refused key: the error report names the profile whose key it was, and how to log in again.
      if ((error as { status?: number }).status === 401 && !ctx.keyFromEnvironment) Object.assign(error as object, { profile: ctx.profile });
      throw error;
    } finally {
      await ctx.client.close();
    }
  };
}

export const intOption =
  (min: number, max: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };

/** `value` as `values` spell it, matched in any case (`status` is `Status`); undefined when none matches. */
export const inAnyCase = (values: readonly string[], value: string): string | undefined => values.find((v) => v.toLowerCase() === value.toLowerCase());

/** A choice in any case (`status` for `Status`): the value as the API spells it, else commander's usage error. */
export const anyCase =
  (values: readonly string[]) =>
  (value: string): string => {
    const found = inAnyCase(values, value);
    if (found === undefined) throw new InvalidArgumentError(`Allowed choices are ${values.join(', ')}.`);
    return found;
  };


/** An option taking one of `values`, in any case (`--state Open`), listed in its help as commander lists choices. */
export const enumOption = (flags: string, description: string, values: readonly string[]): Option =>
  new Option(flags, description).choices(values).argParser(anyCase(values));

const commaList = (value: string, previous: string[] = []) => [
  ...previous,
  ...value.split(',').map((s) => s.trim()).filter(Boolean),
];

/** The options of every list: one page (`--page`, `--per-page`) or the whole (`--all`, `--limit`), and its shape. */
export function paginationOptions(command: Command): Command {
  return command
    .addOption(new Option('--page <n>', 'page of results, from 1').argParser(intOption(1, 1_000_000)).conflicts(['all', 'limit']))
    .option('--per-page <n>', 'results per page (at most 100)', intOption(1, 100), 25)
    .option('--all', 'every record, following the list to its end')
    .option('--limit <n>', 'at most this many records, over as many pages as it takes', intOption(1, 10_000_000))
    .option('--fields <a,b,c>', 'these columns, in this order (with --json: these fields of each record)', commaList)
    .option('--header', 'a header row before tab-separated output');
}

/** A list command's whole action: fetch (a page or all), then print with the columns and `--fields`. */
export async function showList<T>(ctx: Context, path: string, query: Query, columns: Column<T>[], o: PageOptions): Promise<void> {
  const listing = await fetchList<T>(ctx.client, path, query, o);
  await ctx.out.list(listing, columns, { page: o.page ?? 1, perPage: o.perPage, fields: o.fields, header: o.header });
}

/** The examples each command's help ends with, for its group's help to show the first of each. */
const EXAMPLES = new WeakMap<Command, string[]>();

/** "Examples:" under a command's help: real lines a person can copy. */
export function examples(command: Command, ...lines: string[]): Command {
  EXAMPLES.set(command, lines);
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** Every group's help (`agora help pages`) ends with examples too: the first of each of its verbs'. */
export function groupExamples(program: Command): void {
  for (const group of program.commands) {
    if (group.commands.length === 0 || EXAMPLES.has(group)) continue;
    const lines = group.commands.map((verb) => EXAMPLES.get(verb)?.[0]).filter((line): line is string => line !== undefined);
    if (lines.length) examples(group, ...lines);
  }
}

/**
 * The commands that change nothing in the community: they read it, or set up this client or the server. Named by
 * their verb (`list`), their group (`profiles`) or both (`statuses comments`: `comments create` acts). Every other
 * command acts.
 */
const CHANGES_NOTHING = new Set([
  ...['list', 'get', 'show', 'watch', 'export', 'deliveries', 'attendees', 'list-keys', 'statuses comments', 'stream'],
  ...['serve', 'login', 'logout', 'whoami', 'profiles', 'openapi', 'completion'],
]);

/**
 * `-y, --yes` on every command that acts, so that a script may pass it to each: those that ask before they act
 * (deletions, suspensions) declare it with what it skips; the others take it and ignore it, rather than refuse it as
 * an unknown option (exit 2). Added here, once, to commands made without it, including ones added later.
 */
export function yesOnActingCommands(program: Command): void {
  for (const group of program.commands)
    for (const command of group.commands.length ? group.commands : [group]) {
      const names = [group.name(), command.name(), `${group.name()} ${command.name()}`];
      if (names.some((name) => CHANGES_NOTHING.has(name)) || command.options.some((o) => o.long === '--yes')) continue;
      command.option('-y, --yes', 'accepted for scripts; this command asks for no confirmation');
    }
}

/**
 * Ids given as arguments, or read from standard input for `-`: one a line, or separated by spaces; of a table piped
 * in (`list --fields id,name`: tab-separated), the first column of each line, after its header (`--header`: a first
 * line of our lists' field names). A pipe with nothing to act on is a list that came out empty (a cron job's
 * `reports list … | agora reports resolve -` when the queue is): said, and no failure (exit 0). Nothing typed at a
 * terminal is a person who forgot the pipe: a usage error (exit 2).
 */
export async function idsFrom(args: string[]): Promise<string[]> {
  if (!args.includes('-')) return args;
  const { isHeaderRow } = await import('./header-row.js');
  // `-` typed at a terminal without a pipe waits for what is typed: said, or the command seems to hang.
  if (process.stdin.isTTY) process.stderr.write('Reading ids from the terminal, one a line; Ctrl-D to end (or pipe them in).\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  const header = isHeaderRow(lines[0]!) ? lines[0]!.split('\t').map((cell) => cell.trim()).join(' ') : undefined;
  const fromStdin = lines.flatMap((line, i) => {
    if (i === 0 && header !== undefined) return [];
    const first = line.split('\t')[0]!.trim();
    return line.includes('\t') ? (first ? [first] : []) : line.split(/\s+/).filter(Boolean);
  });
  const ids = args.flatMap((a) => (a === '-' ? fromStdin : [a]));
  if (ids.length > 0) return ids;
  const none = header === undefined ? 'no ids on standard input' : `no ids on standard input (only a header line, "${header}")`;
  throw process.stdin.isTTY ? new UsageError(none) : new NothingToDoError(`Nothing to do: ${none}.`);
}

interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

/**
 * Checks a request body with the shared schema before sending it, so that a bad option is a usage error
 * (exit 2) named by its flag. `flags` maps API fields to flags where they differ from `--field-name`.
 */
export async function validateBody<T>(schema: SafeParser<T>, body: unknown, flags: Record<string, string> = {}): Promise<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const { UsageError } = await import('./errors.js');
  // One problem a flag, said once: a query's messages name their field already (`since must be …`).
  const problems = new Map<string, string>();
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '');
    const message = issue.message.startsWith(`${field} `) ? issue.message.slice(field.length + 1) : issue.message;
    if (!problems.has(field)) problems.set(field, `${flags[field] ?? `--${field.replace(/_/g, '-')}`} ${message}`);
  }
  throw new UsageError([...problems.values()].join('; '));
}

/**
 * What `--json` prints for a record done by a call answered without a body (a 204): its id and what became of it,
 * one document a record as for the calls that answer with the record.
 */
export const doneRecord = (id: string, result: 'removed' | 'deleted' | 'revoked' | 'withdrawn' | 'refused') => ({ id, result });

/** Some records of a run over several were refused, each said as it came; the others were done: exit 1. */
export class PartlyDoneError extends Error {
  override name = 'PartlyDoneError';
}

/** A refusal that would be the same for every record of the run: the key, the caller's account, the rate. */
const stopsTheRun = (error: { status: number; code: string }) =>
  credentialsRefused(error) || error.status === 429 || error.status >= 500;

/** `act` on each item, a few at a time (a long list piped in meets no burst against the rate limit); results in order. */
export async function fewAtATime<T, R>(items: readonly T[], act: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += 8) results.push(...(await Promise.all(items.slice(i, i + 8).map(act))));
  return results;
}

/**
 * Acts on each of several records in turn (ids given, or `-` from a pipe). Each done is said on stdout by `act`
 * (`--json`: one document a record, the API's answer or `doneRecord`). One the server refuses (gone, settled
 * meanwhile, not allowed) is said on stderr naming it (`--json`: the API's error body with the record's `id`), and
 * the others go on, as `rm` and `kill` do: a bulk run is not left half done by one record that changed under it.
 * The run then fails (exit 1), saying how many were done. A refusal that would meet every record (the key, the
 * caller's suspension, the rate, a server error; with `adminsOnly`, a 403), no answer, or a declined question
 * stops it at once, saying what was done before; one record alone fails as it is.
 */
export async function eachRecord<T extends string>(
  ctx: Context,
  items: T[],
  what: (item: T) => string,
  act: (item: T) => Promise<void>,
  { adminsOnly = false } = {},
): Promise<void> {
  // A record named twice (`a a`, or an id and its prefix) is acted on once, not refused the second time.
  items = [...new Set(items)];
  const { sayOnStderr } = await import('./safe-text.js');
  const say = (line: string) => sayOnStderr(line, ctx.out.json);
  let done = 0;
  let refused = 0;
  const tally = () => `${done} of ${items.length} done${refused ? `; ${refused} refused (said above)` : ''}`;
  for (const item of items) {
    try {
      await act(item);
      done++;
    } catch (error) {
      const e = error as Error & { status: number; code: string; body?: object };
      const ofThisRecord = e.name === 'ApiError' && !stopsTheRun(e) && !(adminsOnly && e.status === 403) && items.length > 1;
      if (!ofThisRecord) {
        // Ctrl-C at a question is a "no" said with the shell's 130 (and after refusals, too: the tally says them).
        const interrupted = e.name === 'ExitPromptError';
        const declined = interrupted || e.name === 'DeclinedError';
        // A "no" after refusals still fails the run; any other stop says what was done before it.
        if (declined && !interrupted && refused > 0) throw new PartlyDoneError(`${tally()}; stopped at ${what(item)}, declined`);
        // A "no" after some were done: the line `main.ts` says on it counts them, not "nothing was changed".
        if (declined && done + refused > 0) {
          const { DeclinedError } = await import('./confirm.js');
          throw new DeclinedError(`Stopped at ${what(item)}, ${interrupted ? 'interrupted' : 'declined'}: ${tally()}.`, interrupted);
        }
        if (!declined && done + refused > 0 && !ctx.out.json) say(`${tally()} before this:`);
        throw error;
      }
      refused++;
      say(ctx.out.json ? JSON.stringify({ ...e.body, id: item }) : `error: ${what(item)}: ${apiErrorText(e)}`);
    }
  }
  if (refused > 0) throw new PartlyDoneError(tally());
}
