import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/main.js';

/** Every help screen lists the global options and ends with examples, groups and verbs alike. */
function everyCommand(command: Command, path: string[] = []): [string, Command][] {
  return command.commands
    .filter((sub) => sub.name() !== 'help')
    .flatMap((sub) => [[[...path, sub.name()].join(' '), sub] as [string, Command], ...everyCommand(sub, [...path, sub.name()])]);
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => void (text += chunk), writeErr: (chunk) => void (text += chunk) });
  command.outputHelp();
  return text;
}

describe('help screens', () => {
  it('list the global options and end with examples, for every group and every verb', () => {
    const commands = everyCommand(buildProgram());
    expect(commands.length).toBeGreaterThan(80);
    const lacking = commands.filter(([, command]) => {
      const help = helpOf(command);
      // The examples last: nothing after their lines (`agora help queue` had its keys after them).
      return !/\nGlobal Options:\n/.test(help) || !/\nExamples:\n( {2}\$ \S[^\n]*\n)+\s*$/.test(help);
    });
    expect(lacking.map(([path]) => path)).toEqual([]);
  });
});
