import type { Command } from 'commander';

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('offline administration, straight on the store file');
  admin
    .command('create-key')
    .description('create an API key pair and print it once (for the bootstrap administrator unless --user)')
    .requiredOption('--db <file>', 'SQLite database file (env AGORA_DB)', process.env.AGORA_DB)
    .option('--user <id>', 'user who owns the key')
    .action(async (options: { db: string; user?: string }, command: Command) => {
      const [{ openSqliteStore }, { issueApiKey }] = await Promise.all([
        import('../../store/sqlite.js'),
        import('../../domain/api-keys.js'),
      ]);
      const store = await openSqliteStore(options.db);
      try {
        const key = await issueApiKey({ store, clock: () => new Date() }, options.user);
        if (command.optsWithGlobals().json) {
          process.stdout.write(`${JSON.stringify(key)}\n`);
        } else {
          process.stdout.write(`user_id\t${key.user_id}\napi_key\t${key.api_key}\napi_secret\t${key.api_secret}\n`);
          if (process.stdout.isTTY) process.stderr.write('The secret is shown only this once: store it now.\n');
        }
      } finally {
        await store.close();
      }
    });
}
