import { Option, type Command } from 'commander';
import { intOption, withContext } from '../command-kit.js';

interface ImportFlags {
  format?: 'csv' | 'json' | 'ndjson';
  dryRun?: boolean;
  concurrency: number;
  report?: string;
  resume?: boolean;
  passwordFile?: string;
}

const IMPORTS = {
  users: { path: '/users', schema: 'CreateUserInput', what: 'users (columns of CreateUserInput; `agora users export` output with a password)' },
  pages: { path: '/pages', schema: 'CreatePageInput', what: 'pages (name, page_configuration_id, privacy, user_id, description)' },
  follows: { path: '/follows', schema: 'CreateFollowInput', what: 'follows (followable_type, followable_id, user_id)' },
} as const;

type ImportName = keyof typeof IMPORTS;

async function schemaOf(name: ImportName) {
  switch (name) {
    case 'users':
      return (await import('../../shared/schemas/users.js')).CreateUserInput;
    case 'pages':
      return (await import('../../shared/schemas/pages.js')).CreatePageInput;
    case 'follows':
      return (await import('../../shared/schemas/follows.js')).CreateFollowInput;
  }
}

/** `users import`, `pages import`, `follows import`, and `users export`, added to those of their groups the run built. */
export function registerImportExportCommands(program: Command): void {
  const groupNamed = (name: string) => program.commands.find((c) => c.name() === name);
  for (const name of Object.keys(IMPORTS) as ImportName[]) {
    const group = groupNamed(name);
    if (!group) continue;
    const command = group
      .command('import')
      .description(`create ${IMPORTS[name].what} from a CSV, JSON array or NDJSON file`)
      .argument('<file>', 'the file, or - for standard input')
      .addOption(new Option('--format <format>', 'csv, json or ndjson (default: from the extension)').choices(['csv', 'json', 'ndjson']))
      .option('--dry-run', 'validate every row and report; send nothing')
      .option('--concurrency <n>', 'rows sent at once', intOption(1, 64), 8)
      .option('--report <file>', 'write one NDJSON line per row (row, status, id or error)')
      .option('--resume', 'skip the rows the --report of an earlier run shows as done, and append to it');
    if (name === 'users')
      command.option('--password-file <file>', "a file whose first line is the password of every row that has none");
    command.action(
      withContext<ImportFlags>(async ({ client, out }, o, [file]) => {
        const [{ formatOf, openSource }, { runImport }] = await Promise.all([
          import('../import/read-rows.js'),
          import('../import/run-import.js'),
        ]);
        const format = formatOf(file!, o.format);
        const password = o.passwordFile ? await firstLine(o.passwordFile) : undefined;
        const summary = await runImport({
          client,
          kind: {
            name,
            path: IMPORTS[name].path,
            schema: await schemaOf(name),
            complete: password === undefined ? undefined : (fields) => ({ password, ...fields }),
          },
          source: openSource(file!, format),
          sizeOf: file === '-' ? undefined : file,
          concurrency: o.concurrency,
          dryRun: !!o.dryRun,
          report: o.report,
          resume: !!o.resume,
          progress: process.stderr.isTTY ? process.stderr : undefined,
        });
        const rows = summary.created + summary.already + summary.failed + summary.valid + summary.skipped;
        if (out.json) out.printJson(summary);
        else if (o.dryRun) out.done(`dry run: ${summary.valid} of ${rows} rows valid, ${summary.failed} invalid; nothing sent`);
        else
          out.done(
            `created ${summary.created}, already there ${summary.already + summary.skipped}, failed ${summary.failed}` +
              (summary.skipped ? ` (${summary.skipped} skipped by --resume)` : ''),
          );
        if (summary.failed > 0)
          throw new Error(`${summary.failed} of ${rows} rows failed${o.report ? ` (see ${o.report})` : ''}`);
      }),
    );
  }

  groupNamed('users')
    ?.command('export')
    .description('every user you may see, as NDJSON or CSV (permission users.export); never a password')
    .addOption(new Option('--format <format>', 'ndjson or csv').choices(['ndjson', 'csv']).default('ndjson'))
    .option('--output <file>', 'write to this file instead of standard output')
    .action(
      withContext<{ format: string; output?: string }>(async ({ client }, o) => {
        const [{ pipeline }, { createWriteStream }] = await Promise.all([import('node:stream/promises'), import('node:fs')]);
        const body = await client.download('/users/export', { format: o.format });
        await pipeline(body, o.output ? createWriteStream(o.output, { mode: 0o600 }) : process.stdout);
      }),
    );
}

async function firstLine(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const line = (await readFile(path, 'utf8')).split(/\r?\n/, 1)[0] ?? '';
  if (!line) {
    const { UsageError } = await import('../errors.js');
    throw new UsageError(`--password-file ${path} is empty`);
  }
  return line;
}
