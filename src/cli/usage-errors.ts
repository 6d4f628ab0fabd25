import type { Command } from 'commander';
import { withoutUrlCredentials } from '../shared/url-credentials.js';

/** What commander had to say of a usage error, kept for `main` to say (exit 2). */
export interface UsageSaid {
  /** As commander words it, `error: …`, one line or more. */
  text?: string;
}

/** `agora profiles`: a command as it is typed. */
const pathOf = (command: Command): string => (command.parent ? `${pathOf(command.parent)} ${command.name()}` : command.name());

/** A group's commands, as its help lists them. */
const verbsOf = (group: Command): string[] =>
  group
    .createHelp()
    .visibleCommands(group)
    .map((c) => c.name())
    .filter((name) => name !== 'help');

/**
 * A word that is none of a group's commands is said to be so (`agora profiles bogus`), also in a group with a
 * default command (`profiles` lists): commander would pass the word to that command as an argument of its own
 * ("too many arguments for 'list'").
 */
export function refuseUnknownVerbs(command: Command): void {
  if ((command as unknown as { _defaultCommandName?: string })._defaultCommandName)
    command.hook('preSubcommand', (group, verb) => {
      const word = group.args[0];
      if (word === undefined || word.startsWith('-') || word === 'help' || word === verb.name() || verb.aliases().includes(word)) return;
      // Commander's own refusal, with its suggestion (`lis`: did you mean list?), as a group without a default says it.
      (group as unknown as { unknownCommand(): never }).unknownCommand();
    });
  for (const sub of command.commands) refuseUnknownVerbs(sub);
}

/**
 * Commander's own usage errors (an unknown option or choice, a missing argument, a command a group does not have)
 * are kept, not written, for `main` to say as it says the CLI's own: as commander words them, a group's unknown
 * command followed by the commands it has; under `--json` as the contract's error body. A group given no command
 * shows its help (on stderr, exit 2); under `--json` it says instead, as an error, which commands it has.
 */
export function keepUsageErrors(command: Command, json: boolean, said: UsageSaid = {}): UsageSaid {
  command.configureOutput({
    outputError: (text) => {
      const unknownVerb = command.parent && text.startsWith('error: unknown command ');
      // `--url`'s value is quoted by commander as it was given: its user and password are left out.
      text = withoutUrlCredentials(text);
      said.text = unknownVerb ? `${text}${pathOf(command)} has these commands: ${verbsOf(command).join(', ')}\n` : text;
    },
    ...(json ? { writeErr: () => void (said.text ??= `error: ${pathOf(command)} needs a command: ${verbsOf(command).join(', ')}`) } : {}),
  });
  for (const sub of command.commands) keepUsageErrors(sub, json, said);
  return said;
}

/** The contract's error body of a usage error commander worded: its lines as one message, without `error: `. */
export const usageErrorBody = (text: string): string =>
  JSON.stringify({ error: { code: 'invalid_usage', message: text.trim().replace(/^error: /, '').replace(/\n\(/g, ' (').replace(/\n+/g, '; ') } });
