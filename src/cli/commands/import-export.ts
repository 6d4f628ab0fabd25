import { Option, type Command } from 'commander';
import { onSignals } from '../errors.js';
import { examples, intOption, withContext } from '../command-kit.js';
import type { ApiClient, ApiError } from '../../client/api-client.js';
import type { Names } from '../names.js';
import { selfCommand } from '../self-command.js';

interface ImportFlags {
  format?: 'csv' | 'json' | 'ndjson';
  dryRun?: boolean;
  concurrency: number;
  report?: string;
  resume?: boolean;
  passwordFile?: string;
}

const IMPORTS = {
  users: {
    path: '/users',
    what: 'users: first_name, last_name, nickname, email, password, accept_conditions, accept_confidentiality (an export of `agora users export` with a password column, or --password-file)',
    examples: [
      'agora users import people.csv --report report.ndjson',
      'agora users import people.csv --report report.ndjson --resume     # after a crash or Ctrl-C: the rest only',
      'agora users export --output users.ndjson && agora users import users.ndjson --password-file initial.txt',
      'gzip -dc people.ndjson.gz | agora users import - --format ndjson --dry-run',
    ],
  },
  pages: {
    path: '/pages',
    what: "pages: name, page_configuration_id (an id or the configuration's name), privacy (public, private or secret), user_id (the creator: an id or a nickname), description",
    examples: ['agora pages import pages.csv --report pages-report.ndjson', 'agora pages import pages.json --dry-run'],
  },
  follows: {
    path: '/follows',
    what: "follows: user_id (an id or a nickname), followable_type (Page or User), followable_id (an id, or the page's slug or the user's nickname)",
    examples: ['agora follows import follows.ndjson --concurrency 16 --report follows-report.ndjson'],
  },
} as const;

type Body = Record<string, unknown>;

/** Rows may name records as people know them; each distinct name is looked up once per run (ids pass as they are). */
const RESOLVE: Partial<Record<ImportName, (names: Names, body: Body) => Promise<Body>>> = {
  pages: async (names, body) => ({
    ...body,
    page_configuration_id: await names.resolveOnce('config', String(body.page_configuration_id)),
    user_id: await names.resolveOnce('user', String(body.user_id)),
  }),
  follows: async (names, body) => ({
    ...body,
    followable_id: await names.resolveOnce(body.followable_type === 'User' ? 'user' : 'page', String(body.followable_id)),
    user_id: await names.resolveOnce('user', String(body.user_id)),
  }),
};

/**
 * A follow the user already has is already there, as a row an earlier run created is (users and pages have no
 * such refusal: a taken email or nickname may be someone else's). Its id is looked up for the report; a look-up
 * that fails leaves the row already there, without one.
 */
const ALREADY: Partial<Record<ImportName, (client: ApiClient, error: ApiError, body: Body) => Promise<{ id?: string } | undefined>>> = {
  follows: async (client, error, body) => {
    if (error.code !== 'already_following') return undefined;
    const { user_id, followable_type, followable_id } = body as Record<string, string>;
    const found = await client.get<{ items: { id: string }[] }>('/follows', { user_id, followable_type, followable_id }).catch(() => undefined);
    return { id: found?.items[0]?.id };
  },
};

/** Failed rows shown on stderr when there is no --report to read them in. */
const FAILURES_SHOWN = 10;

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
      .description(
        `create ${IMPORTS[name].what.split(':')[0]} from a CSV (with a header row), a JSON array or NDJSON file, each row checked first; ` +
          `a rerun never creates a row twice. Fields of a row: ${IMPORTS[name].what.slice(IMPORTS[name].what.indexOf(':') + 2)}`,
      )
      .argument('<file>', 'the file, or - for standard input')
      .addOption(new Option('--format <format>', 'csv, json or ndjson (default: from the extension)').choices(['csv', 'json', 'ndjson']))
      .option('--dry-run', 'validate every row and report; send nothing')
      .option('--concurrency <n>', 'rows sent at once', intOption(1, 64), 8)
      .option('--report <file>', 'one NDJSON line per row (row, status, id or error); default: kept under $XDG_STATE_HOME/agora/imports/, named after the file')
      .option('--resume', 'skip the rows the report of an earlier run of this file shows as done, and append to it');
    if (name === 'users')
      command.option('--password-file <file>', "a file whose first line is the password of every row that has none");
    examples(command, ...IMPORTS[name].examples);
    command.action(
      withContext<ImportFlags>(async ({ client, out, names }, o, [file]) => {
        const [{ formatOf, openSource }, { runImport }] = await Promise.all([
          import('../import/read-rows.js'),
          import('../import/run-import.js'),
        ]);
        const format = formatOf(file!, o.format);
        let failures = 0;
        const password = o.passwordFile ? await firstLine(o.passwordFile) : undefined;
        const { defaultReport } = await import('../import/report-path.js');
        // A dry run keeps no report unless asked: it would stand in for the real run's, and --resume would read it.
        const report = o.report ?? (o.dryRun ? undefined : await defaultReport(file!));
        const stopped = { value: false };
        const interrupt = () => {
          stopped.value = true;
          if (process.stderr.isTTY) process.stderr.write('\r\u001b[2K');
          out.note('stopping: the rows already sent finish and are recorded…');
        };
        const stopListening = onSignals(['SIGINT'], interrupt);
        const summary = await runImport({
          client,
          kind: {
            name,
            path: IMPORTS[name].path,
            schema: await schemaOf(name),
            complete: password === undefined ? undefined : (fields) => ({ password, ...fields }),
            resolve: RESOLVE[name] && ((body) => RESOLVE[name]!(names, body)),
            already: ALREADY[name] && ((error, body) => ALREADY[name]!(client, error, body)),
            ...(name === 'users' ? usersExtras(client, names) : {}),
          },
          source: openSource(file!, format),
          concurrency: o.concurrency,
          dryRun: !!o.dryRun,
          report,
          resume: !!o.resume,
          stopped,
          progress: process.stderr.isTTY ? process.stderr : undefined,
          onFailure: (failure) => {
            if (o.report || ++failures > FAILURES_SHOWN) return;
            // On a terminal the progress bar holds the last line: clear it, the bar redraws below.
            if (process.stderr.isTTY) process.stderr.write('\r\u001b[2K');
            if (failure.status === 'skipped') out.note(`row ${failure.row}: skipped: ${failure.reason}`);
            else out.note(`row ${failure.row}: ${failure.error?.message ?? 'failed'} (${failure.error?.code ?? 'failed'})`);
          },
        }).finally(stopListening);
        if (stopped.value) {
          const { selfCommand } = await import('../self-command.js');
          const again = [selfCommand(), name, 'import', file!, ...(o.report ? ['--report', o.report] : []), '--resume'];
          const { InterruptedError } = await import('../errors.js');
          throw new InterruptedError(
            `interrupted: ${summary.created + summary.already} rows imported, ${summary.failed} failed; the rest with: ${again.join(' ')}`,
          );
        }
        const rows = summary.created + summary.already + summary.failed + summary.valid + summary.skipped + summary.left_out;
        if (rows === 0) out.note(`${file === '-' ? 'standard input' : file} has no rows: nothing to import`);
        if (out.json) out.printJson(summary);
        else if (o.dryRun) out.done(`dry run: ${summary.valid} of ${rows} rows valid, ${summary.failed} invalid; nothing sent`);
        else
          out.done(
            `created ${summary.created}, already there ${summary.already + summary.skipped}, failed ${summary.failed}` +
              (summary.skipped ? ` (${summary.skipped} skipped by --resume)` : '') +
              (summary.left_out ? `, skipped ${summary.left_out}` : ''),
          );
        if (report && !o.report && !out.json && summary.failed === 0 && process.stderr.isTTY) out.note(`report: ${report}`);
        if (summary.failed > 0)
          throw new Error(
            `${summary.failed} of ${rows} rows failed` +
              (o.report
                ? ` (see ${o.report})`
                : summary.failed > FAILURES_SHOWN
                  ? ` (the first ${FAILURES_SHOWN} above; every row in ${report ?? '--report FILE'})`
                  : report
                    ? ` (every row in ${report})`
                    : ''),
          );
      }),
    );
  }

  const users = groupNamed('users');
  if (!users) return;
  examples(
    users
      .command('export')
      .description('every user you may see, as NDJSON or CSV, streamed (permission users.export); never a password')
      .addOption(new Option('--format <format>', 'ndjson or csv').choices(['ndjson', 'csv']).default('ndjson'))
      .option('--output <file>', 'write to this file (mode 0600; whole or not at all) instead of standard output'),
    'agora users export > users.ndjson',
    'agora users export --format csv --output users.csv',
    'agora users export | agora --profile other users import - --format ndjson --password-file initial.txt',
  ).action(
    withContext<{ format: 'ndjson' | 'csv'; output?: string }>(async ({ client, out }, o) => {
      const { exportUsers } = await import('../export.js');
      const count = await exportUsers(client, o.format, o.output, process.stderr.isTTY ? process.stderr : undefined);
      if (o.output) out.done(`exported ${count} users to ${o.output}`);
    }),
  );
}

/**
 * What an export of users carries beyond a create: its role (set by name once the user exists, when it is not
 * the Members every new user has), and the bootstrap administrator `admin`, whom every server makes itself.
 */
function usersExtras(client: ApiClient, names: Names) {
  return {
    skip: (fields: Body) =>
      fields.nickname === 'admin' && fields.role === 'Admins'
        ? `admin is the bootstrap administrator every server makes for itself (${selfCommand()} admin create-key)`
        : undefined,
    after: async (id: string, fields: Body) => {
      const role = typeof fields.role === 'string' ? fields.role.trim() : '';
      if (!role || role === 'Members') return;
      const { seg } = await import('../../client/api-client.js');
      await client.put(`/users/${seg(id)}/role`, { permission_set_id: await names.resolveOnce('role', role) });
    },
  };
}

async function firstLine(path: string): Promise<string> {
  const [{ readFile }, { UsageError }] = await Promise.all([import('node:fs/promises'), import('../errors.js')]);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--password-file ${path} cannot be read (${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)})`);
  }
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  if (!line) throw new UsageError(`--password-file ${path} is empty`);
  return line;
}
