import type { Command } from 'commander';
import type { Deps } from '../../domain/context.js';

const DB_HELP = 'SQLite database file (env AGORA_DB)';

/** Opens the store named by --db for one offline command, and closes it whatever happens. */
async function withStore<T>(file: string, run: (deps: Deps) => Promise<T>): Promise<T> {
  const { openSqliteStore } = await import('../../store/sqlite.js');
  const store = await openSqliteStore(file, { secretKey: process.env.AGORA_SECRET_KEY });
  try {
    return await run({ store, clock: () => new Date() });
  } finally {
    await store.close();
  }
}

const printLine = (line: string) => process.stdout.write(`${line}\n`);

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('offline administration, straight on the store file');
  admin
    .command('create-key')
    .description('create an API key pair and print it once (for the bootstrap administrator unless --user)')
    .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB)
    .option('--user <id>', 'user who owns the key')
    .action(async (options: { db: string; user?: string }, command: Command) => {
      const { issueApiKey } = await import('../../domain/api-keys.js');
      const key = await withStore(options.db, (deps) => issueApiKey(deps, options.user));
      if (command.optsWithGlobals().json) {
        printLine(JSON.stringify(key));
      } else {
        process.stdout.write(`user_id\t${key.user_id}\napi_key\t${key.api_key}\napi_secret\t${key.api_secret}\n`);
        if (process.stdout.isTTY) process.stderr.write('The secret is shown only this once: store it now.\n');
      }
    });
  admin
    .command('list-keys')
    .description('list API key pairs: id, owner, created, last used (never a secret)')
    .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB)
    .option('--user <id>', 'only the keys of this user')
    .action(async (options: { db: string; user?: string }, command: Command) => {
      const { listApiKeys } = await import('../../domain/api-keys.js');
      const items = await withStore(options.db, async (deps) => {
        const all = [];
        for (let page = 1; ; page += 1) {
          const { items, total_items } = await listApiKeys(deps, { user_id: options.user, page, per_page: 100 });
          all.push(...items);
          if (all.length >= total_items || items.length === 0) return all;
        }
      });
      const { Output } = await import('../output.js');
      await new Output({ json: !!command.optsWithGlobals().json }).list({ items, total_items: items.length }, [
        { header: 'id', value: (k) => k.id },
        { header: 'owner', value: (k) => k.user_id },
        { header: 'api_key', value: (k) => k.api_key },
        { header: 'created', value: (k) => k.created_at },
        { header: 'last used', value: (k) => k.last_used_at ?? 'never' },
      ]);
    });
  admin
    .command('revoke-key')
    .description('revoke an API key pair, by its api_key value or its id: every server on the store refuses it from the next request')
    .argument('<key>', 'the api_key value or the key id')
    .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB)
    .action(async (ref: string, options: { db: string }, command: Command) => {
      const { revokeApiKey } = await import('../../domain/api-keys.js');
      const key = await withStore(options.db, (deps) => revokeApiKey(deps, ref));
      if (command.optsWithGlobals().json) printLine(JSON.stringify(key));
      else printLine(`revoked ${key.api_key} (${key.id}) of user ${key.user_id}`);
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
        const json = command.optsWithGlobals().json;
        // Each drift is printed as it is found (a million drifted keys never sit in memory); --json, one
        // line a drift too: {"drift": {...}}, then {"drifted": N, "repaired": bool}.
        let drifted = 0;
        await store.checkCounts(options.repair, (d) => {
          drifted += 1;
          const line = json ? `${JSON.stringify({ drift: d })}\n` : `${d.key}\tkept ${d.kept}\tactual ${d.actual}\n`;
          // A reader slower than the check (a pipe) holds it back instead of the lines piling up here.
          if (!process.stdout.write(line)) return new Promise<void>((resolve) => process.stdout.once('drain', resolve));
        });
        if (json) process.stdout.write(`${JSON.stringify({ drifted, repaired: !!options.repair })}\n`);
        else if (drifted === 0) process.stdout.write('counts agree with a recount: no drift\n');
        if (drifted && !options.repair) throw new Error(`${drifted} kept counts drifted from a recount (--repair rewrites them)`);
      } finally {
        await store.close();
      }
    });
}
