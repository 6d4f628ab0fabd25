import { FOLLOW_ALL } from '../client/api-client.js';
import { InvalidArgumentError, type Command } from 'commander';
import type { Context, GlobalOptions } from './context.js';

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

/** `--page` and `--per-page` on every list. */
export function paginationOptions(command: Command): Command {
  return command
    .option('--page <n>', 'page of results, from 1', intOption(1, 1_000_000), 1)
    .option('--per-page <n>', 'results per page (at most 100)', intOption(1, 100), 25)
    .option('--all', 'every result: follows the Link cursor to the end, 100 at a time');
}

export interface PageOptions {
  page: number;
  perPage: number;
  all?: boolean;
}

/** The paging of a list request; with `--all`, the client follows the cursor from the first page. */
export const pageQuery = (o: PageOptions) =>
  o.all ? { page: 1, per_page: 100, [FOLLOW_ALL]: true as const } : { page: o.page, per_page: o.perPage };

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
