import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Query } from '../client/api-client.js';
import type { Context, GlobalOptions } from './context.js';
import type { Column, Listing } from './output.js';

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
      if ((error as { status?: number }).status === 401) Object.assign(error as object, { profile: ctx.profile });
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

export interface PageOptions {
  page?: number;
  perPage: number;
  all?: boolean;
  limit?: number;
  fields?: string[];
  header?: boolean;
}

export const pageQuery = (o: PageOptions) => ({ page: o.page ?? 1, per_page: o.perPage });

/**
 * One page of a list, or with `--all`/`--limit` the whole of it: the `Link: rel="next"` cursor when the server
 * gives one, else `page=1,2,…` until `total_items` is reached. `bare` lists (notifications) are arrays with the
 * total in `X-Total-Count`.
 */
export async function fetchList<T>(
  client: Context['client'],
  path: string,
  query: Query,
  o: PageOptions,
  bare = false,
): Promise<Listing<T>> {
  const read = async (q: Query) => {
    const answer = await client.answer<unknown>('GET', path, { query: q });
    const items = (bare ? answer.data : (answer.data as { items: T[] }).items) as T[];
    const total = bare ? (answer.total ?? items.length) : (answer.data as { total_items: number }).total_items;
    return { items, total, next: answer.next };
  };
  if (!o.all && o.limit === undefined) {
    const { items, total } = await read({ ...query, ...pageQuery(o) });
    return { items, total_items: total, first: (pageQuery(o).page - 1) * o.perPage + 1 };
  }
  const want = o.limit ?? Infinity;
  const perPage = Math.min(100, want);
  const items: T[] = [];
  let total: number;
  let q: Query = { ...query, page: 1, per_page: perPage };
  for (let page = 1; ; page++) {
    const got = await read(q);
    items.push(...got.items);
    total = got.total;
    if (items.length >= want || got.items.length === 0) break;
    if (got.next) q = { ...query, ...got.next };
    else if (items.length >= total) break;
    else q = { ...query, page: page + 1, per_page: perPage };
  }
  const limited = items.length > want || (o.limit !== undefined && items.length === want && total > want);
  return { items: items.slice(0, want), total_items: total, first: 1, walked: true, limited };
}

/** A list command's whole action: fetch (a page or all), then print with the columns and `--fields`. */
export async function showList<T>(ctx: Context, path: string, query: Query, columns: Column<T>[], o: PageOptions): Promise<void> {
  const listing = await fetchList<T>(ctx.client, path, query, o);
  await ctx.out.list(listing, columns, { page: o.page ?? 1, perPage: o.perPage, fields: o.fields, header: o.header });
}

/** "Examples:" under a command's help: real lines a person can copy. */
export function examples(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** Ids given as arguments, or read from standard input (one a line, or separated by spaces) for `-`. */
export async function idsFrom(args: string[]): Promise<string[]> {
  if (!args.includes('-')) return args;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const fromStdin = Buffer.concat(chunks).toString('utf8').split(/\s+/).filter(Boolean);
  return args.flatMap((a) => (a === '-' ? fromStdin : [a]));
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
  const problems = result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    return `${flags[field] ?? `--${field.replace(/_/g, '-')}`} ${issue.message}`;
  });
  throw new UsageError(problems.join('; '));
}
