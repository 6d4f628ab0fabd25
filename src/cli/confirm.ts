/**
 * Asks before a destructive step when a person is at the terminal; `--yes` (or no terminal at all, as in
 * scripts) goes ahead. Declining stops the command with nothing changed.
 */
export async function confirmOrStop(message: string, yes: boolean | undefined): Promise<void> {
  if (yes || !process.stdin.isTTY || !process.stdout.isTTY) return;
  const { confirm } = await import('@inquirer/prompts');
  if (!(await confirm({ message, default: false }))) throw new Error('Cancelled: nothing was changed');
}
