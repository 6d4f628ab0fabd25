import type { Suspension } from '../shared/schemas/suspensions.js';

/** When a suspension ends, as the CLI says it everywhere: `until 2026-12-31T00:00:00.000Z`, or `until lifted`. */
export const suspensionEnd = (until: string | null | undefined) => `until ${until ?? 'lifted'}`;

/**
 * Suspending someone already suspended replaces their suspension (its reason and its end), whether it is asked
 * for by `users suspend` or by `reports resolve --action suspend`: the question at a terminal names the suspension
 * in force, and a run without one (a script, `--yes`) goes on and says on stderr what it replaced (`replacedNote`).
 */
export function suspendQuestion(who: string, was: Suspension | null | undefined, next: { reason: string; until?: string | null }): string {
  const current = was ? `${who} is suspended ${suspensionEnd(was.until)} ("${was.reason}"): replace that with a suspension` : `Suspend ${who}`;
  return `${current} ${suspensionEnd(next.until)} ("${next.reason}")?`;
}

export const replacedNote = (nickname: string, was: Suspension) => `Replaced ${nickname}'s suspension ${suspensionEnd(was.until)} ("${was.reason}")`;

/**
 * `--until`, checked before any request (exit 2): with the API's own schema, and by its rule that a suspension ends
 * after it starts (by this machine's clock; the server's has the last word). For `users suspend` and
 * `reports resolve --action suspend` alike.
 */
export async function checkedUntil(until: string | undefined): Promise<void> {
  if (until === undefined) return;
  const [{ SuspendUserInput }, { validateBody }, { UsageError }] = await Promise.all([
    import('../shared/schemas/suspensions.js'),
    import('./command-kit.js'),
    import('./errors.js'),
  ]);
  const checked = (await validateBody(SuspendUserInput.pick({ until: true }), { until })).until;
  if (checked && Date.parse(checked) <= Date.now()) throw new UsageError(`--until ${until} is not in the future: a suspension ends after it starts`);
}
