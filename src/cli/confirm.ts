import { visible } from './safe-text.js';

/**
 * A "No" to a confirmation: nothing was done, and that is not a failure (exit 0, as `rm -i` and `npm` answer a no).
 * Its message is the one line `main.ts` says on stderr, so that the person sees the command heard them. Ctrl-C at
 * any question (inquirer's ExitPromptError, turned into this by `main.ts` and `eachRecord`) is `interrupted`: said
 * the same, but exit 130, as a shell reports an interrupt.
 */
export class DeclinedError extends Error {
  override name = 'DeclinedError';
  constructor(
    message = 'Cancelled: nothing was changed.',
    readonly interrupted = false,
  ) {
    super(message);
  }
}

/**
 * Asks before a destructive step when a person is at the terminal; `--yes` (or no terminal at all, as in
 * scripts) goes ahead. The question names the record (`Refuse linus's request to join Book Circle?`). Ids piped
 * in while a person watches (`… --fields id | agora reports resolve - --action remove` typed at a prompt) are
 * asked about on the terminal itself (`/dev/tty`), as git and ssh ask: standard input holds the ids. Output piped
 * away while a person types (`agora statuses delete … | tee log`) is asked about on standard error, as apt asks.
 */
export async function confirmOrStop(message: string, yes: boolean | undefined): Promise<void> {
  if (!mayAsk(yes)) return;
  const input = process.stdin.isTTY ? undefined : await theTerminal();
  if (!process.stdin.isTTY && !input) return;
  const output = process.stdout.isTTY ? process.stdout : process.stderr;
  const on = input || output !== process.stdout ? { input: input ?? process.stdin, output } : undefined;
  try {
    const [prompts, { confirmStrict }] = await Promise.all([import('@inquirer/prompts'), import('./prompts.js')]);
    if (!(await confirmStrict(prompts, visible(message), false, on))) throw new DeclinedError();
  } finally {
    input?.destroy();
  }
}

/**
 * Whether `confirmOrStop` may ask (no `--yes`, and a person watches the output, or types at the terminal while its
 * standard error shows), piped ids or not: what a question names is read only then, so that a script's run spends
 * no call on it.
 */
export const mayAsk = (yes: boolean | undefined): boolean =>
  !yes && (!!process.stdout.isTTY || (!!process.stdin.isTTY && !!process.stderr.isTTY));

/** The controlling terminal to read an answer from, when standard input is a pipe; none without one (a service). */
async function theTerminal(): Promise<import('node:tty').ReadStream | undefined> {
  const [{ openSync }, { ReadStream }] = await Promise.all([import('node:fs'), import('node:tty')]);
  try {
    return new ReadStream(openSync('/dev/tty', 'r'));
  } catch {
    return undefined;
  }
}

/** `total` records named in one question: `a`, `a and b`, `a, b and c`, or `a, b and 3 more` (the first two labels). */
export function namedList(labels: string[], total = labels.length): string {
  if (total <= 1) return labels[0] ?? '';
  if (total <= 3) return `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
  return `${labels.slice(0, 2).join(', ')} and ${total - 2} more`;
}

/** Said after a question about several records when some were left out of it, as their acts will be refused. */
export const leftOut = (count: number) => (count === 0 ? '' : ` (${count} other${count === 1 ? '' : 's'} cannot be: said after)`);
