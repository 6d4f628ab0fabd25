import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { groupExamples, yesOnActingCommands } from './cli/command-kit.js';
import { examplesAsRun, selfCommand } from './cli/self-command.js';
import { serverUrlProblem } from './cli/server-url.js';
import { keepUsageErrors, refuseUnknownVerbs, usageErrorBody, type UsageSaid } from './cli/usage-errors.js';
import { registerAccessRequestCommands } from './cli/commands/access-requests.js';
import { registerAdminCommands } from './cli/commands/admin.js';
import { registerAuthCommands } from './cli/commands/auth.js';
import { registerCompletionCommand } from './cli/commands/completion.js';
import { registerContentCommands } from './cli/commands/content.js';
import { registerModerationCommands, registerRemovedCommands } from './cli/commands/moderation.js';
import { registerEventCommands } from './cli/commands/events.js';
import { registerFollowCommands } from './cli/commands/follows.js';
import { registerImportExportCommands } from './cli/commands/import-export.js';
import { registerInviteCommands } from './cli/commands/invites.js';
import { registerKeyCommands } from './cli/commands/keys.js';
import { registerNotificationCommands } from './cli/commands/notifications.js';
import { registerPageConfigCommands } from './cli/commands/page-configs.js';
import { registerPageCommands } from './cli/commands/pages.js';
import { registerOpenApiCommand } from './cli/commands/openapi.js';
import { registerPermissionCommands } from './cli/commands/permissions.js';
import { registerQueueCommand } from './cli/commands/queue.js';
import { registerAuditCommands } from './cli/commands/audit.js';
import { registerRoleCommands, registerSetRoleCommand } from './cli/commands/roles.js';
import { DEFAULT_PORT, registerServeCommand } from './cli/commands/serve.js';
import { registerUserCommands } from './cli/commands/users.js';
import { ignoreClosedPipe } from './cli/output.js';
import { registerWebhookCommands } from './cli/commands/webhooks.js';
import { apiErrorText, credentialsRefused, ExitCode } from './cli/errors.js';
import { VERSION } from './shared/version.js';

const positiveSeconds = (value: string): number => {
  const seconds = Number(value);
  if (!(seconds > 0) || !Number.isFinite(seconds)) throw new InvalidArgumentError('must be a number of seconds greater than 0');
  return seconds;
};

/** `--url`, checked as it is parsed: an address the CLI can tell is none is a usage error, before any request. */
const serverUrl = (value: string): string => {
  const problem = serverUrlProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
};

/**
 * Which function adds each top-level command. A run builds only the group it names (`agora pages list` builds
 * `pages`): building every command's options and help costs ~25 ms of a client command's start. `--help`, a
 * misspelt command (for the suggestion) and the completion script build them all.
 */
const REGISTRARS: [string[], (program: Command) => void][] = [
  [['serve'], registerServeCommand],
  [['admin'], registerAdminCommands],
  [['login', 'logout', 'whoami', 'profiles'], registerAuthCommands],
  [['users'], registerUserCommands],
  [['pages'], registerPageCommands],
  [['page-configs'], registerPageConfigCommands],
  [['follows'], registerFollowCommands],
  [['permissions'], registerPermissionCommands],
  [['roles'], registerRoleCommands],
  [['access-requests'], registerAccessRequestCommands],
  [['invites'], registerInviteCommands],
  [['webhooks'], registerWebhookCommands],
  [['notifications'], registerNotificationCommands],
  [['statuses', 'comments', 'likes', 'stream'], registerContentCommands],
  [['events'], registerEventCommands],
  [['queue'], registerQueueCommand],
  [['audit'], registerAuditCommands],
  [['keys'], registerKeyCommands],
  [['users'], (program) => registerSetRoleCommand(program.commands.find((c) => c.name() === 'users')!)],
  [['statuses', 'comments', 'likes', 'users', 'reports'], (program) => registerModerationCommands(program)],
  [['removed'], registerRemovedCommands],
  [['users', 'pages', 'follows'], registerImportExportCommands],
  [['openapi'], registerOpenApiCommand],
  [['completion'], registerCompletionCommand],
];

/** Global options that take a value: what follows them is not the command's name. */
const GLOBAL_WITH_VALUE = new Set(['--url', '--profile', '--timeout']);

/** The top-level command `argv` runs, when it names one that is not `help` or `completion`. */
function commandNamed(argv: string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
    else if (arg === '--') return undefined;
    else if (!arg.startsWith('-')) return REGISTRARS.some(([names]) => names.includes(arg)) && arg !== 'completion' ? arg : undefined;
  }
  return undefined;
}

/** The commander program, with every command, or (given the run's argv) only the one it names. */
export function buildProgram(argv?: string[]): Command {
  const program = new Command('agora')
    .description('agora: a community social-network API server, and the terminal client that administers it')
    .version(VERSION, '-V, --version')
    .option('--url <url>', 'API base URL (env AGORA_URL; default from the profile, else http://127.0.0.1:4010)', serverUrl)
    .option('--profile <name>', 'stored profile to use (env AGORA_PROFILE)')
    .option('--json', "print the API's JSON exactly")
    .option('--timeout <seconds>', 'give up on a call after this many seconds (env AGORA_TIMEOUT; default 30)', positiveSeconds)
    .showSuggestionAfterError()
    // gh's "INHERITED FLAGS": every subcommand's help lists --json, --profile, --url and --timeout too.
    .configureHelp({ showGlobalOptions: true })
    // Help's examples as they run where the reader stands (every command inherits this, as it is made after it).
    // Help shown after a usage error (`agora reports`) goes to stderr: its examples as they run too.
    .configureOutput({ writeOut: (text) => void process.stdout.write(examplesAsRun(text)), writeErr: (text) => void process.stderr.write(examplesAsRun(text)) })
    .addHelpText(
      'after',
      '\nExamples:\n  $ agora serve --demo\n  $ agora login --url http://127.0.0.1:4010 --api-key ak_… --api-secret as_…\n' +
        '  $ agora pages list --privacy private\n  $ agora help pages create\n',
    )
    .exitOverride();
  const only = argv && commandNamed(argv);
  for (const [names, register] of REGISTRARS) if (!only || names.includes(only)) register(program);
  groupExamples(program);
  yesOnActingCommands(program);
  refuseOptionsAsValues(program);
  refuseUnknownVerbs(program);
  return program;
}

/**
 * `--reason --yes` (a script's empty "$REASON") would give `--reason` the value "--yes": commander takes the next
 * word as the value whatever it is. A value that is one of the command's options (its own or a global one) is
 * refused as it is parsed (exit 2), before any request, and before a word after it is taken for an argument.
 */
function refuseOptionsAsValues(command: Command): void {
  const flags = new Set<string>();
  for (let c: Command | null = command; c; c = c.parent) for (const o of c.options) for (const f of [o.long, o.short]) if (f) flags.add(f);
  for (const option of command.options) {
    if (!option.required || option.variadic) continue;
    const parse = option.parseArg;
    option.argParser((value: string, previous: unknown) => {
      if (flags.has(value)) throw new InvalidArgumentError(`${value} is an option, not a value: ${option.long} needs one before it.`);
      return parse ? parse(value, previous) : value;
    });
  }
  for (const sub of command.commands) refuseOptionsAsValues(sub);
}

/**
 * `agora help pages list` as `agora pages list --help`: commander's own help command reads only the first word
 * after `help`, so it would show the group's help, not the verb's.
 */
export function helpAsFlag(argv: string[]): string[] {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
    else if (arg.startsWith('-')) continue;
    else if (arg !== 'help') return argv;
    else {
      const words = argv.slice(i + 1);
      return words.length === 0 ? argv : [...argv.slice(0, i), ...words, '--help'];
    }
  }
  return argv;
}

/**
 * `agora keyz --help` is an unknown command, not a request for the top-level help (commander shows that, exit 0):
 * the flag is dropped so that commander says so, with its suggestion (exit 2).
 */
function unknownBeforeHelp(argv: string[], program: Command): string[] {
  const [word, verb] = argv.slice(2).filter((arg, i, rest) => !arg.startsWith('-') && !GLOBAL_WITH_VALUE.has(rest[i - 1] ?? ''));
  if (word === undefined || word === 'help') return argv;
  const group = program.commands.find((c) => c.name() === word);
  // A known group's verb that is none of its own (`agora help keys revok`, `profiles lis --help`): the same, one level down.
  const known = group && (verb === undefined || group.commands.length === 0 || group.commands.some((c) => c.name() === verb || c.aliases().includes(verb)));
  return known ? argv : argv.filter((arg) => arg !== '--help' && arg !== '-h');
}

/** Runs the program; the only place that decides the process's exit code. */
export async function main(rawArgv: string[]): Promise<void> {
  // `agora --help | head -1`: commander writes before any Output exists; a reader that left is not an error.
  ignoreClosedPipe(process.stdout);
  const asked = helpAsFlag(rawArgv);
  const program = buildProgram(asked);
  const argv = unknownBeforeHelp(asked, program);
  // Known before parsing: commander's usage errors may come before it has read `--json`.
  const jsonAsked = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : undefined).includes('--json');
  const usage = keepUsageErrors(program, jsonAsked);
  try {
    await program.parseAsync(argv);
    process.exitCode = ExitCode.ok;
  } catch (error) {
    process.exitCode = await report(error, !!program.opts().json || jsonAsked, usage);
  }
  // The work is done (a server has closed its store): leave now. undici's HTTP parser is WebAssembly, and V8
  // finishes optimising it in the background for ~130 ms after the last answer before a process may end.
  // But first let stdout and stderr flush: a pipe takes 64 KiB at a time, and an exit would cut the rest.
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((done) => stream.write('', () => done()))));
  process.exit();
}

/** CLI-side failures, by error name: the exit code and the code shown in a `--json` error body. */
const LOCAL_ERRORS: Record<string, { exit: number; code: string }> = {
  UsageError: { exit: ExitCode.usage, code: 'invalid_usage' },
  AuthError: { exit: ExitCode.auth, code: 'not_logged_in' },
  ConnectionError: { exit: ExitCode.failure, code: 'connection_failed' },
  CredentialsError: { exit: ExitCode.failure, code: 'credentials_damaged' },
  ImportFileError: { exit: ExitCode.failure, code: 'unreadable_file' },
  NameNotFoundError: { exit: ExitCode.failure, code: 'not_found' },
  PartlyDoneError: { exit: ExitCode.failure, code: 'partly_done' },
  InterruptedError: { exit: 130, code: 'interrupted' },
};

const agora = async () => selfCommand();

async function report(error: unknown, json: boolean, usage: UsageSaid): Promise<number> {
  // Help and version are not failures.
  if (error instanceof CommanderError && error.exitCode === 0) return ExitCode.ok;
  const name = (error as Error)?.name;
  const { sayOnStderr } = await import('./cli/safe-text.js');
  // Messages carry what the server said and names it stores: never a control character to the terminal.
  const say = (line: string) => sayOnStderr(line, json);
  if (error instanceof CommanderError) {
    // A usage error commander worded (its help after one, shown already, says nothing more here).
    if (usage.text && json) say(usageErrorBody(usage.text));
    else if (usage.text) usage.text.trimEnd().split('\n').forEach(say);
    return ExitCode.usage;
  }
  // Stopped by a signal, quietly: 130 for Ctrl-C, 143 for SIGTERM, as a shell reports them.
  if (name === 'InterruptedError' && !(error as Error).message) return (error as Error).cause === 'SIGTERM' ? 143 : 130;
  // A "no" at a question: said (plain, for the person who answered it, even with --json), and not a failure. Ctrl-C
  // at a question is said the same (nothing was sent), with the shell's 130.
  if (name === 'DeclinedError' || name === 'ExitPromptError') {
    const { DeclinedError } = await import('./cli/confirm.js');
    const declined = error instanceof DeclinedError ? error : new DeclinedError(undefined, true);
    sayOnStderr(declined.message, false);
    return declined.interrupted ? 130 : ExitCode.ok;
  }
  // Nothing to act on (an empty pipe of ids): said, plain even with --json as it is no error body, and not a failure.
  if (name === 'NothingToDoError') {
    sayOnStderr((error as Error).message, false);
    return ExitCode.ok;
  }
  if (name === 'ApiError') {
    const e = error as Error & { status: number; code: string; body: unknown };
    if (json) say(JSON.stringify(e.body));
    else say(`error: ${apiErrorText(e)}`);
    const profile = (error as { profile?: string }).profile;
    if (!json && e.status === 401 && profile !== undefined)
      say(`The key of profile "${profile}" was refused: log in again with ${await agora()} login --profile ${profile}`);
    // A key refused, or a key whose role may not use the API: either way the credentials do not get in.
    return credentialsRefused(e) ? ExitCode.auth : ExitCode.failure;
  }
  const local = LOCAL_ERRORS[name ?? ''] ?? { exit: ExitCode.failure, code: 'failed' };
  const message = (error as Error)?.message ?? String(error);
  say(json ? JSON.stringify({ error: { code: local.code, message } }) : `error: ${message}`);
  // Not when a proxy was in the way (HTTP_PROXY): then it is the proxy, or the path through it, to look at.
  const unreachable = name === 'ConnectionError' ? /^Cannot reach the agora server at (\S+) \(/.exec(message) : null;
  if (!json && unreachable) {
    // Started as the profile expects it: on its port, when that is not serve's default.
    const port = URL.canParse(unreachable[1]!) ? new URL(unreachable[1]!).port : '';
    const serve = `${await agora()} serve${port && port !== String(DEFAULT_PORT) ? ` --port ${port}` : ''}`;
    say(`Is the server running? Start one with ${serve}, or log in to another with ${await agora()} login --url URL`);
  }
  return local.exit;
}
