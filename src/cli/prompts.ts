import { UsageError } from './errors.js';
import { visible } from './safe-text.js';

/** A value a create needs: the flag that gives it, and how to ask for it on a terminal. */
export interface Question {
  flag: string;
  /** The question; it may depend on the answers given before it (an id for the kind of target picked). */
  message: string | ((answers: Record<string, unknown>) => string);
  /** `text` (default), `secret` (masked, asked twice), `choice` (a menu), `confirm` (yes/no, must be yes). */
  kind?: 'text' | 'secret' | 'choice' | 'confirm';
  /** The menu: fixed values, or records to pick from (page configurations, roles). */
  choices?: string[] | (() => Promise<{ name: string; value: string }[]>);
  /**
   * An error message for a bad answer, which is asked again; undefined when it is good. `answers` holds the
   * values given so far (an end checked against its start), as the shared schema will read them.
   */
  check?: (value: string, answers: Record<string, unknown>) => string | undefined | Promise<string | undefined>;
  /** Turns the answer into the value (a date to ISO 8601); throws to ask again. */
  parse?: (value: string) => unknown;
  /**
   * Not required: asked only on a terminal when a required value is asked for too, so that the questions offer
   * all the command takes; never missing without a terminal. A text question only (empty for none).
   */
  optional?: true;
}

export const interactive = () => !!process.stdin.isTTY && !!process.stdout.isTTY;

/**
 * Fills in the missing values of `values` (those undefined): asked one by one on a terminal, re-asked while
 * invalid; without a terminal, one usage error naming every missing flag. Ctrl-C ends the run (exit 130) with
 * nothing sent.
 */
export async function askMissing<V extends Record<string, unknown>>(values: V, questions: Partial<Record<keyof V, Question>>): Promise<V> {
  const unanswered = (Object.entries(questions) as [keyof V & string, Question][]).filter(
    ([key, q]) => values[key] === undefined || (q.kind === 'confirm' && !values[key]),
  );
  for (const [, q] of unanswered) if (q.optional && ((q.kind ?? 'text') !== 'text' || q.choices)) throw new Error(`${q.flag}: only a text question may be optional`);
  const missing = unanswered.filter(([, q]) => !q.optional);
  if (missing.length === 0) return values;
  if (!interactive())
    throw new UsageError(`missing ${missing.map(([, q]) => q.flag).join(', ')} (asked for on a terminal; required otherwise)`);
  const prompts = await import('@inquirer/prompts');
  const validate = (q: Question) => async (value: string) => {
    if (q.optional && value.trim() === '') return true;
    try {
      q.parse?.(value);
    } catch (error) {
      return (error as Error).message;
    }
    return (await q.check?.(value, values)) ?? true;
  };
  for (const [key, q] of unanswered) {
    let answer: unknown;
    // A question may name stored text (a report's excerpt): shown with its control characters made visible.
    const asked = visible(typeof q.message === 'function' ? q.message(values) : q.message);
    const message = q.optional ? `${asked} (optional, ⏎ for none)` : asked;
    if (q.kind === 'secret') {
      for (;;) {
        const first = await prompts.password({ message, mask: '*', validate: validate(q) });
        const again = await prompts.password({ message: `${message} (again)`, mask: '*' });
        if (first === again) {
          answer = first;
          break;
        }
        process.stderr.write('The two do not match; once more.\n');
      }
    } else if (q.kind === 'confirm') {
      // A no is not the end of everything typed so far: say why it is needed and ask again (Ctrl-C stops).
      while (!(answer = await confirmStrict(prompts, message)))
        process.stderr.write(`Without it nothing can be created (${q.flag}); answer yes, or Ctrl-C to stop.\n`);
    } else if (q.choices) {
      // Names come from the server: shown with their control characters made visible, like every other output.
      const choices = (Array.isArray(q.choices) ? q.choices.map((c) => ({ name: c, value: c })) : await q.choices()).map((c) => ({
        ...c,
        name: visible(c.name),
      }));
      if (choices.length === 0) throw new UsageError(`missing ${q.flag}, and there is nothing to choose from`);
      answer = await prompts.select({ message, choices });
    } else {
      const typed = await prompts.input({ message, validate: validate(q) });
      answer = q.optional && typed.trim() === '' ? undefined : q.parse ? q.parse(typed) : typed;
    }
    (values as Record<string, unknown>)[key] = answer;
  }
  return values;
}

/**
 * A yes/no question that takes only a whole word: `y`, `yes`, `n`, `no` (any case); `yy` or `yes please` are
 * asked again rather than read as yes (inquirer's confirm takes any answer starting with y).
 */
export async function confirmStrict(
  prompts: typeof import('@inquirer/prompts'),
  message: string,
  byDefault = false,
  /** Where to ask, when not on standard input and output (the terminal itself, standard input being a pipe). */
  on?: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
): Promise<boolean> {
  const answer = await prompts.input(
    {
      message: `${message} (${byDefault ? 'Y/n' : 'y/N'})`,
      validate: (value) => (/^(y|yes|n|no)?$/i.test(value.trim()) ? true : 'answer y or n'),
    },
    on,
  );
  const word = answer.trim().toLowerCase();
  return word === '' ? byDefault : word.startsWith('y');
}

/** A check from a field of a shared zod schema: its first message, without the field's name repeated. */
export function fieldCheck(schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } }) {
  return (value: string) => {
    const result = schema.safeParse(value);
    return result.success ? undefined : (result.error?.issues[0]?.message ?? 'invalid');
  };
}

/** The secret on standard input (`--password-stdin`, `login --with-token`): its first line. */
export async function secretFromStdin(flag: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
  if (!line) throw new UsageError(`${flag}: nothing on standard input`);
  return line;
}
