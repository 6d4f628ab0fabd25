import { Option, type Command } from 'commander';
import { intOption } from '../command-kit.js';

/** Where `agora serve` listens unless told otherwise. */
export const DEFAULT_PORT = 4010;

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the API server on a SQLite file or a PostgreSQL database')
    .option('--host <host>', 'address to listen on (env AGORA_HOST)', process.env.AGORA_HOST ?? '127.0.0.1')
    // Through .env() the environment's value is checked like the flag's: AGORA_PORT=abc is a usage error.
    .addOption(
      new Option('--port <port>', 'port; 0 picks a free one').env('AGORA_PORT').argParser(intOption(0, 65535)).default(DEFAULT_PORT),
    )
    .option('--db <file|url>', 'SQLite database file, or postgres:// URL (env AGORA_DB)', process.env.AGORA_DB ?? './agora.db')
    .option('--demo', 'seed a small community on an empty store and print an administrator key')
    .option('--log', 'log every request to stderr, not only errors (never credentials): readable lines on a terminal, JSON lines when piped')
    .addOption(
      new Option('--workers <n>', 'processes serving the store (node:cluster); auto = one per core')
        .env('AGORA_WORKERS')
        .argParser((value) => (value === 'auto' ? 'auto' : intOption(1, 64)(value)))
        .default(1),
    )
    .addHelpText('after', '\nExamples:\n  $ agora serve --demo --db ./demo.db\n  $ agora serve --port 8080 --log 2>> agora.log\n  $ agora serve --workers auto\n  $ AGORA_SECRET_KEY=… agora serve --db postgres://agora@127.0.0.1:5432/agora\n')
    .action(async (options: { host: string; port: number; db: string; demo?: boolean; log?: boolean; workers: number | 'auto' }) => {
      const [{ serve }, { readableLog }, { selfCommand }] = await Promise.all([
        import('../../server/listen.js'),
        import('../log-lines.js'),
        import('../self-command.js'),
      ]);
      await serve({
        ...options,
        logStream: process.stderr.isTTY ? readableLog(process.stderr) : process.stderr,
        bootstrapKey: process.env.AGORA_BOOTSTRAP_API_KEY,
        bootstrapSecret: process.env.AGORA_BOOTSTRAP_API_SECRET,
        secretKey: process.env.AGORA_SECRET_KEY,
        command: selfCommand(),
        print: (line) => process.stdout.write(`${line}\n`),
      });
    });
}
