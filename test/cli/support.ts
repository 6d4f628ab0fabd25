import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli, runCliTty, type CliResult } from '../helpers/cli.js';
import type { Credentials, RunningServer } from '../helpers/server.js';

/** Any ANSI escape sequence (colour, bold, cursor). */
export const ANSI = /\u001b\[/;
export const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

/**
 * A terminal's output without the slow-call spinner (drawn between hiding the cursor and showing it again, on
 * a loaded machine where a call takes over 300 ms): what stays on the screen once the command is done.
 */
export const withoutSpinner = (text: string) => text.replace(/\u001b\[\?25l[^]*?\u001b\[\?25h/g, '').replace(/\u001b\[\?25h/g, '');

/** The environment that points the CLI at a server with a key pair, without a stored profile. */
export const envFor = (server: RunningServer, creds: Credentials = server.admin) => ({
  AGORA_URL: server.url,
  AGORA_API_KEY: creds.key,
  AGORA_API_SECRET: creds.secret,
});

/** A fresh HOME inside the server's temp folder, so that no test sees another's profiles. */
export const freshHome = (server: RunningServer) => mkdtempSync(join(server.dir, 'home-'));

export interface Modes {
  tsv: CliResult;
  json: CliResult;
  table: CliResult;
  noColor: CliResult;
}

/**
 * Runs one command in the four ways a user meets it, side by side: piped (TSV), `--json`, at a terminal
 * with colours, and at a terminal with NO_COLOR=1.
 */
export async function inAllModes(server: RunningServer, args: string[], creds?: Credentials): Promise<Modes> {
  const home = server.dir;
  const env = envFor(server, creds);
  const [tsv, json, table, noColor] = await Promise.all([
    runCli(args, { home, env }),
    runCli([...args, '--json'], { home, env }),
    runCliTty(args, { home, env: { ...env, NO_COLOR: undefined } }),
    runCliTty(args, { home, env: { ...env, NO_COLOR: '1' } }),
  ]);
  for (const [mode, result] of Object.entries({ tsv, json, table, noColor }))
    expect(result.code, `${mode}: ${result.stderr}${mode === 'table' || mode === 'noColor' ? result.stdout : ''}`).toBe(0);
  return { tsv, json, table: { ...table, stdout: withoutSpinner(table.stdout) }, noColor: { ...noColor, stdout: withoutSpinner(noColor.stdout) } };
}

/** TSV rows: no header, no colour, split on tabs. */
export function tsvRows(stdout: string): string[][] {
  expect(stdout).not.toMatch(ANSI);
  return stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => line.split('\t'));
}

/** Checks the two terminal renderings: a table with these headers, coloured only without NO_COLOR. */
export function expectTables(modes: Modes, headers: string[]): void {
  expect(modes.table.stdout).toMatch(ANSI);
  expect(modes.noColor.stdout).not.toMatch(ANSI);
  expect(modes.noColor.stdout).toMatch(/┌─+/);
  const headerLine = modes.noColor.stdout.split('\n').find((l) => l.includes(headers[0]!))!;
  expect(headerLine).toBeDefined();
  for (const header of headers) expect(headerLine).toContain(` ${header} `);
  // Same table, with or without colour.
  expect(stripAnsi(modes.table.stdout)).toBe(modes.noColor.stdout);
}

/**
 * A list as a terminal `columns` wide shows it, no colour: the header's cells, each row's cells, and the columns the
 * note says were left out for the width ('' when none). No line is wider than the terminal.
 */
export async function tableAt(columns: number, args: string[], server: RunningServer, creds?: Credentials) {
  const run = await runCliTty(args, { home: server.dir, env: { ...envFor(server, creds), NO_COLOR: '1' }, columns });
  expect(run.code, run.stdout).toBe(0);
  const lines = stripAnsi(withoutSpinner(run.stdout)).replace(/\r/g, '').split('\n');
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
  const [head = [], ...rows] = lines.filter((l) => l.startsWith('│')).map((l) => l.split('│').slice(1, -1).map((c) => c.trim()));
  const left = /\(([^()]*) left out for the terminal's width/.exec(lines.join(' '))?.[1] ?? '';
  return { head, rows, left };
}
