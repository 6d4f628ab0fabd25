import { UsageError } from './errors.js';
import { visible } from './safe-text.js';

/** A value a create needs: the flag that gives it, and how to ask for it on a terminal. */
export interface Question {
  flag: string;
  message: string;
  /** `text` (default), `secret` (masked, asked twice), `choice` (a menu), `confirm` (yes/no, must be yes). */
  kind?: 'text' | 'secret' | 'choice' | 'confirm';
  /** The menu: fixed values, or records to pick from (page configurations, roles). */
  choices?: string[] | (() => Promise<{ name: string; value: string }[]>);
  /** An error message for a bad answer, which is asked again; undefined when it is good. */
  check?: (value: string) => string | undefined;
  /** Turns the answer into the value (a date to ISO 8601); throws to ask again. */
  parse?: (value: string) => unknown;
}

export const interactive = () => !!process.stdin.isTTY && !!process.stdout.isTTY;

/**
 * Fills in the missing values of `values` (those undefined): asked one by one on a terminal, re-asked while
 * invalid; without a terminal, one usage error naming every missing flag. Ctrl-C ends the run (exit 130) with
 * nothing sent.
 */
export async function askMissing<V extends Record<string, unknown>>(values: V, questions: Partial<Record<keyof V, Question>>): Promise<V> {
  const missing = (Object.entries(questions) as [keyof V & string, Question][]).filter(
    ([key, q]) => values[key] === undefined || (q.kind === 'confirm' && !values[key]),
  );
  if (missing.length === 0) return values;
  if (!interactive())
    throw new UsageError(`missing ${missing.map(([, q]) => q.flag).join(', ')} (asked for on a terminal; required otherwise)`);
  const prompts = await import('@inquirer/prompts');
  const validate = (q: Question) => (value: string) => {
    const problem = q.check?.(value);
    if (problem) return problem;
    try {
      q.parse?.(value);
    } catch (error) {
      return (error as Error).message;
    }
    return true;
  };
  for (const [key, q] of missing) {
    let answer: unknown;
    if (q.kind === 'secret') {
      for (;;) {
        const first = await prompts.password({ message: q.message, mask: '*', validate: validate(q) });
        const again = await prompts.password({ message: `${q.message} (again)`, mask: '*' });
        if (first === again) {
          answer = first;
          break;
        }
        process.stderr.write('The two do not match; once more.\n');
      }
    } else if (q.kind === 'confirm') {
      answer = await prompts.confirm({ message: q.message, default: false });
      if (!answer) throw new UsageError(`${q.flag} is required`);
    } else if (q.choices) {
      // Names come from the server: shown with their control characters made visible, like every other output.
      const choices = (Array.isArray(q.choices) ? q.choices.map((c) => ({ name: c, value: c })) : await q.choices()).map((c) => ({
        ...c,
        name: visible(c.name),
      }));
      if (choices.length === 0) throw new UsageError(`missing ${q.flag}, and there is nothing to choose from`);
      answer = await prompts.select({ message: q.message, choices });
    } else {
      const typed = await prompts.input({ message: q.message, validate: validate(q) });
      answer = q.parse ? q.parse(typed) : typed;
    }
    (values as Record<string, unknown>)[key] = answer;
  }
  return values;
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
