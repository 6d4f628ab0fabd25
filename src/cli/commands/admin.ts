import type { Command } from 'commander';
import { examples } from '../command-kit.js';
import type { Deps } from '../../domain/context.js';

const DB_HELP = 'SQLite database file or postgres:// URL (env AGORA_DB)';

/**
 * Opens the store named by --db for one offline command, and closes it whatever happens. `mustExist`: a command that
 * only reads or changes a store refuses a file that is not there (a mistyped path), instead of making an empty one.
 */
async function withStore<T>(target: string, run: (deps: Deps) => Promise<T>, mustExist = false): Promise<T> {
  if (mustExist && (await noFileAt(target))) throw new Error(`no store at ${target}`);
  const { openStore } = await import('../../store/open.js');
  const store = await openStore(target, { secretKey: process.env.AGORA_SECRET_KEY });
  try {
    return await run({ store, clock: () => new Date() });
  } finally {
    await store.close();
  }
}

/** `--db` names a SQLite file that is not there (not a PostgreSQL URL, nor a store in memory): opening it makes one. */
async function noFileAt(target: string): Promise<boolean> {
  const [{ isPostgresTarget }, { existsSync }] = await Promise.all([import('../../store/open.js'), import('node:fs')]);
  return !!target && !isPostgresTarget(target) && target !== ':memory:' && !existsSync(target);
}

const printLine = (line: string) => process.stdout.write(`${line}\n`);

/** Every key pair of the store (of one user), as `list-keys` shows them. */
async function everyKey(deps: Deps, user?: string) {
  const { listApiKeys } = await import('../../domain/api-keys.js');
  const all = [];
  for (let page = 1; ; page += 1) {
    const { items, total_items } = await listApiKeys(deps, { user_id: user, page, per_page: 100 });
    all.push(...items);
    if (all.length >= total_items || items.length === 0) return all;
  }
}

/**
 * The key a `revoke-key` ref names: an `api_key` value or a whole id as it is; an id prefix, as `list-keys` shortens
 * ids on a terminal, to its one key (none: exit 1; several: exit 2, naming them), as every other command takes one.
 */
async function keyIdOf(deps: Deps, ref: string): Promise<string> {
  const { ID_PREFIX, oneByPrefix } = await import('../names.js');
  const prefix = ref.toLowerCase();
  return ID_PREFIX.test(prefix) ? oneByPrefix(await everyKey(deps), prefix, { label: 'API key' }) : ref;
}

/**
 * Opens a store named by a SQLite file or a PostgreSQL URL; `mustExist`: a missing file is an error, not a new
 * store. Webhook secrets are sealed by AGORA_SECRET_KEY on PostgreSQL; a SQLite file's by the key file beside it
 * when it has one (how `serve` seals them by default), else by AGORA_SECRET_KEY too.
 */
async function openTarget(target: string, mustExist: boolean) {
  const secretKey = process.env.AGORA_SECRET_KEY;
  const { openStore, isPostgresTarget } = await import('../../store/open.js');
  if (isPostgresTarget(target)) return { store: await openStore(target, { secretKey }), key: 'AGORA_SECRET_KEY' };
  const { existsSync } = await import('node:fs');
  if (mustExist && !existsSync(target)) throw new Error(`no store at ${target}`);
  const file = existsSync(`${target}.key`) || !secretKey;
  return { store: await openStore(target, { secretKey: file ? undefined : secretKey }), key: file ? `${target}.key` : 'AGORA_SECRET_KEY' };
}

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('offline administration, straight on the store file');
  examples(
    admin
      .command('create-key')
      .description('create an API key pair and print it once (for the bootstrap administrator unless --user)')
      .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB)
      .option('--user <user>', 'user who owns the key (id or nickname)')
      .addHelpText('after', '\nWith the global --json it prints {"user_id", "api_key", "api_secret"} on one line, for scripts.'),
    'agora admin create-key --db ./agora.db',
    'agora admin create-key --db ./agora.db --user ada --json',
    'agora admin create-key --db postgres://agora@127.0.0.1:5432/agora --user ada',
  ).action(async (options: { db: string; user?: string }, command: Command) => {
      const { issueApiKey } = await import('../../domain/api-keys.js');
      // A mistyped path makes a new, empty store (a script may make its store this way, before serving it): said.
      const made = await noFileAt(options.db);
      const note = (after: string) => process.stderr.write(`note: there was no store at ${options.db}: made a new, empty one${after}\n`);
      const key = await withStore(options.db, (deps) => issueApiKey(deps, options.user)).catch(async (error: unknown) => {
        // (Unless it was refused before any was made: a mistyped URL.)
        if (made && (await noFileAt(options.db)) === false) note('');
        throw error;
      });
      if (made) note(' (a server on another store will not know this key)');
      if (command.optsWithGlobals().json) {
        printLine(JSON.stringify(key));
      } else {
        // As every record: a table on a terminal, `field<TAB>value` lines piped.
        const { Output } = await import('../output.js');
        await new Output({ json: false }).record(key);
        if (process.stdout.isTTY) process.stderr.write('The secret is shown only this once: store it now.\n');
      }
    });
  examples(
    admin
      .command('list-keys')
      .description('list API key pairs: id, owner, created, last used (never a secret)')
      .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB)
      .option('--user <user>', 'only the keys of this user (id or nickname)'),
    'agora admin list-keys --db ./agora.db',
    'agora admin list-keys --db ./agora.db --user ada --json',
  ).action(async (options: { db: string; user?: string }, command: Command) => {
      const { userIdOf } = await import('../../domain/api-keys.js');
      // The owners' nicknames read from the store too, as `keys list` names them (--json keeps the record's user_id).
      const nicknames = new Map<string, string>();
      const items = await withStore(options.db, async (deps) => {
        const keys = await everyKey(deps, options.user === undefined ? undefined : await userIdOf(deps, options.user));
        for (const user of await deps.store.users.getByIds([...new Set(keys.map((k) => k.user_id))])) nicknames.set(user.id, user.nickname);
        return keys;
      }, true);
      const [{ Output }, { KEY_COLUMNS }] = await Promise.all([import('../output.js'), import('./keys.js')]);
      const names = { load: async () => {}, get: (_kind: string, id: string) => nicknames.get(id) };
      await new Output({ json: !!command.optsWithGlobals().json, names }).list({ items, total_items: items.length }, KEY_COLUMNS);
    });
  examples(
    admin
      .command('revoke-key')
      .description('revoke an API key pair, by its api_key value or its id: every server on the store refuses it from the next request')
      .argument('<key>', 'the api_key value, or the key id (or a prefix of it, at least 6 characters)')
      .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB),
    'agora admin revoke-key ak_3f2a… --db ./agora.db',
  ).action(async (ref: string, options: { db: string }, command: Command) => {
      const { revokeApiKey } = await import('../../domain/api-keys.js');
      const key = await withStore(options.db, async (deps) => revokeApiKey(deps, await keyIdOf(deps, ref.trim())), true);
      if (command.optsWithGlobals().json) printLine(JSON.stringify(key));
      else printLine(`revoked ${key.api_key} (${key.id}) of user ${key.user_id}`);
    });
  examples(
    admin
      .command('copy')
      .description('copy a whole community into a new, empty store: SQLite file or PostgreSQL URL, either way')
      .requiredOption('--from <store>', 'the store to copy: a SQLite file or postgres://…')
      .requiredOption('--to <store>', 'the new store: a SQLite file (created) or an empty postgres://… database')
      .addHelpText(
        'after',
        '\nIds, hashes, timestamps, pending deliveries and fan-out jobs are copied as they are; webhook secrets are sealed again\n' +
          "under the destination's key (AGORA_SECRET_KEY, or <file>.key beside a SQLite file). A destination that holds\n" +
          'anything is refused. The source is read in one snapshot: a server may go on writing to it, but what it\n' +
          'writes after the copy began is not copied (stop it first when moving a community). Every table is counted\n' +
          'against the snapshot before the copy commits, so a failed copy leaves the destination empty.',
      ),
    'agora admin copy --from ./agora.db --to postgres://agora@db.internal/agora',
    'agora admin copy --from postgres://agora@db.internal/agora --to ./backup.db',
  ).action(async (options: { from: string; to: string }, command: Command) => {
      const { resolve } = await import('node:path');
      const { UsageError } = await import('../errors.js');
      const { isPostgresTarget } = await import('../../store/open.js');
      const same = isPostgresTarget(options.from) ? options.from === options.to : resolve(options.from) === resolve(options.to);
      if (same) throw new UsageError('--from and --to name the same store');
      const [{ copyStore }, { CopyProgressBar }, { SecretKeyError }] = await Promise.all([
        import('../../store/copy.js'),
        import('../copy-progress.js'),
        import('../../store/secret-box.js'),
      ]);
      const from = await openTarget(options.from, true);
      try {
        const to = await openTarget(options.to, false);
        try {
          const bar = process.stderr.isTTY ? new CopyProgressBar(process.stderr) : undefined;
          const report = await copyStore(from.store, to.store, bar?.update)
            .catch((error: Error) => {
              // Only the source's secrets are opened: say whose key failed, and which one was tried.
              if (!(error instanceof SecretKeyError)) throw error;
              throw new Error(`the source's webhook secrets cannot be opened with ${from.key}, the key a server on it uses: ${error.message}`);
            })
            .finally(() => bar?.stop());
          if (command.optsWithGlobals().json) printLine(JSON.stringify(report));
          else {
            for (const t of report.tables) printLine(`${t.table}\t${t.source}\t${t.destination}`);
            printLine(`copied ${report.rows} rows; every table counts the same on both sides, and the kept totals agree with a recount`);
          }
          const hooks = report.tables.find((t) => t.table === 'webhooks')?.destination ?? 0;
          // A SQLite copy is served with its key file by default: one sealed with AGORA_SECRET_KEY needs it said.
          if (hooks > 0 && to.key === 'AGORA_SECRET_KEY' && !isPostgresTarget(options.to))
            process.stderr.write(`note: the webhook signing secrets are sealed with AGORA_SECRET_KEY: serve ${options.to} with the same AGORA_SECRET_KEY\n`);
          const changed = report.changedSince.map((t) => `${t.table} ${t.snapshot} → ${t.now}`);
          if (changed.length)
            process.stderr.write(
              `note: rows were added to or deleted from the source while it was copied (${changed.join(', ')}): the copy is the source as ` +
                'the copy began, without those writes (stop its server first when moving a community)\n',
            );
        } finally {
          await to.store.close();
        }
      } finally {
        await from.store.close();
      }
    });
  examples(
    admin
      .command('check')
      .description('recount every list and report where the kept totals drifted (exit 1 on drift)')
      .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB)
      .option('--repair', 'write the recounted totals where they drifted'),
    'agora admin check --db ./agora.db',
    'agora admin check --db postgres://agora@db.internal/agora --repair',
  ).action(async (options: { db: string; repair?: boolean }, command: Command) => {
      await withStore(options.db, async ({ store }) => {
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
      }, true);
    });
  examples(
    admin
      .command('migrate')
      .description('apply the schema migrations the store lacks, and say which (serve applies them too, at start)')
      .requiredOption('--db <file>', DB_HELP, process.env.AGORA_DB),
    'agora admin migrate --db ./agora.db',
    'agora admin migrate --db postgres://agora@db.internal/agora',
  ).action(async (options: { db: string }, command: Command) => {
      const [{ openStore }, { SCHEMA_VERSION }] = await Promise.all([import('../../store/open.js'), import('../../store/store.js')]);
      let applied: string[] = [];
      const store = await openStore(options.db, { secretKey: process.env.AGORA_SECRET_KEY, onMigrated: (names) => (applied = names) });
      await store.close();
      if (command.optsWithGlobals().json) printLine(JSON.stringify({ applied, version: SCHEMA_VERSION }));
      else if (applied.length === 0) printLine(`schema already at ${SCHEMA_VERSION}: nothing to apply`);
      else {
        for (const name of applied) printLine(`applied ${name}`);
        printLine(`schema now at ${SCHEMA_VERSION}`);
      }
    });
}
