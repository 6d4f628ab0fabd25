import { visible } from './safe-text.js';

/** A "No" to a confirmation: nothing was done, and that is not a failure (exit 0, nothing printed). */
export class DeclinedError extends Error {
  override name = 'DeclinedError';
}

/**
 * Asks before a destructive step when a person is at the terminal; `--yes` (or no terminal at all, as in
 * scripts) goes ahead. The question names the record (`Refuse linus's request to join Book Circle?`).
 */
export async function confirmOrStop(message: string, yes: boolean | undefined): Promise<void> {
  if (yes || !process.stdin.isTTY || !process.stdout.isTTY) return;
  const [prompts, { confirmStrict }] = await Promise.all([import('@inquirer/prompts'), import('./prompts.js')]);
  if (!(await confirmStrict(prompts, visible(message)))) throw new DeclinedError('declined');
}
