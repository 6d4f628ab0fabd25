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
  admin
    .command('check')
    .description('recount every list and report where the kept totals drifted (exit 1 on drift)')
    .requiredOption('--db <file>', 'SQLite database file (env AGORA_DB)', process.env.AGORA_DB)
    .option('--repair', 'write the recounted totals where they drifted')
    .action(async (options: { db: string; repair?: boolean }, command: Command) => {
      const { openSqliteStore } = await import('../../store/sqlite.js');
      const store = await openSqliteStore(options.db);
      try {
        const drift = await store.checkCounts(options.repair);
        if (command.optsWithGlobals().json) process.stdout.write(`${JSON.stringify({ drift, repaired: !!options.repair })}\n`);
        else if (drift.length === 0) process.stdout.write('counts agree with a recount: no drift\n');
        else for (const d of drift) process.stdout.write(`${d.key}\tkept ${d.kept}\tactual ${d.actual}\n`);
        if (drift.length && !options.repair) throw new Error(`${drift.length} kept counts drifted from a recount (--repair rewrites them)`);
      } finally {
        await store.close();
      }
    });
}
