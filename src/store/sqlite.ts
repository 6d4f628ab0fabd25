import Database from 'better-sqlite3';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database as Schema } from './schema.js';
import { SecretBox } from './secret-box.js';
import type { OtherProcessesWatch } from './notification-watch.js';
import { createKyselyStore, migrateToLatest, type OpenStoreOptions, type Store } from './store.js';

/**
 * Opens (creating if needed; `:memory:` for a throwaway) the SQLite store and migrates it. A file agora creates is
 * 0600 (its `-wal` and `-shm` take the file's mode), its folder 0700.
 */
export async function openSqliteStore(file: string, options: OpenStoreOptions = {}): Promise<Store> {
  const inMemory = file === ':memory:' || file === '';
  if (!inMemory) createPrivately(file);
  const secrets = options.secretKey
    ? SecretBox.fromString(options.secretKey)
    : inMemory
      ? SecretBox.ephemeral()
      : SecretBox.fromKeyFile(`${file}.key`);
  const sqlite = new Database(file);
  await intoWal(sqlite);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Statement and savepoint journals (every write is a savepoint) in memory, not temporary files.
  sqlite.pragma('temp_store = memory');
  const writes = { count: 0 };
  const onQuery = options.onQuery;
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite, writes) }),
    log: onQuery ? (event) => onQuery(event.query.sql, event.query.parameters) : undefined,
  });
  try {
    // Not inside `onMigrated?.(…)`: an optional call skips evaluating its arguments.
    const applied = await migrateToLatest(db);
    options.onMigrated?.(applied);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // The data version: data_version as a second connection sees it (moved by every other connection's commit, ours
  // included) plus our own writes counted as they run; read afresh after our commits and when `fresh`, else kept for
  // the event-loop turn. (`:memory:` has no second connection: the count sees every write.)
  const watcher = inMemory ? sqlite : new Database(file, { readonly: true, fileMustExist: true });
  if (watcher !== sqlite) {
    watcher.pragma('busy_timeout = 5000');
    // A memory map (up to 2 GiB): no read call and copy per page.
    sqlite.pragma('mmap_size = 2147418112');
  }
  const committed = watcher.prepare('PRAGMA data_version').pluck();
  let seen: number | undefined;
  let forgetting = false;
  const forget = () => {
    seen = undefined;
    forgetting = false;
  };
  const look = (fresh = false): number => {
    if (fresh || seen === undefined) {
      seen = committed.get() as number;
      if (!forgetting) {
        forgetting = true;
        setImmediate(forget);
      }
    }
    return seen;
  };
  const dataVersion = (fresh = false) => `${look(fresh)}.${writes.count}`;
  const versions = watcher !== sqlite ? tableVersions(watcher, dataVersion) : undefined;
  return createKyselyStore(db, 'sqlite', {
    dataVersion,
    versions,
    otherProcesses:
      versions && watchOtherProcesses(() => versions.of(['notifications'], true), options.notificationPollMs ?? 1000),
    committed: forget,
    control: (statement) => sqlite.exec(statement),
    secrets,
    // Before the writer: the last connection to close checkpoints and removes the WAL, which a read-only one cannot.
    beforeClose: async () => {
      if (watcher !== sqlite) watcher.close();
    },
  });
}

/**
 * Per-table versions (bumped by triggers), read again only when the data version moved: a cache keyed by them is
 * retired by writes to the tables it read, not by every write. A table without one answers the data version.
 */
function tableVersions(watcher: Database.Database, dataVersion: (fresh?: boolean) => string) {
  const versionsOf = watcher.prepare('select name, v from table_versions').raw();
  let vector = new Map<string, number>();
  let readAt: string | undefined;
  return {
    of(tables: readonly string[], fresh?: boolean): string {
      const at = dataVersion(fresh);
      if (at !== readAt) {
        vector = new Map(versionsOf.all() as [string, number][]);
        readAt = at;
      }
      if (tables.length === 0) return at;
      let version = '';
      for (const table of tables) {
        const v = vector.get(table);
        if (v === undefined) return at;
        version += `${v}.`;
      }
      return version;
    },
  };
}

/**
 * Other processes on the file (`serve --workers`, an import) tell of nothing: while notifications are watched, the
 * table's version is looked at every `pollMs`, and a move means "anyone may have" new ones.
 */
function watchOtherProcesses(versionOfNotifications: () => string, pollMs: number): OtherProcessesWatch {
  return (emit) => {
    let seen = versionOfNotifications();
    const timer = setInterval(() => {
      const now = versionOfNotifications();
      if (now === seen) return;
      seen = now;
      emit(undefined);
    }, pollMs);
    timer.unref();
    return () => clearInterval(timer);
  };
}

/**
 * Bound LIMIT and OFFSET written `? + 0`: SQLite (STAT4) re-prepares a statement whenever a bound LIMIT changes, but
 * ignores an expression's value. (The store's SQL never holds `limit ?` in a string literal: every value is bound.)
 */
export function withStableLimits(sql: string): string {
  return sql.replace(/\b(limit|offset) \?(?![ \t\n]*[-+*/|%&<>=!,]|\d)/gi, '$1 ? + 0');
}

/**
 * Switches the database to WAL (kept in the file). A new file's switch needs its exclusive lock, and SQLite answers
 * SQLITE_BUSY at once, without waiting the busy timeout, while another process opening it holds a lock: tried again.
 */
async function intoWal(sqlite: Database.Database, waitMs = 5000): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > until) {
        sqlite.close();
        throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function createPrivately(file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

/** Kysely prepares every query, costing more than running most of ours: statements are kept (bounded). */
function withStatementCache(sqlite: Database.Database, writes: { count: number }, max = 1000): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= max) statements.clear();
        statement = countingWrites(sqlite.prepare(withStableLimits(sql)), writes);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/** A writing statement (`readonly`, not `reader`: `INSERT … RETURNING` writes) bumps the write count each run. */
function countingWrites(statement: Database.Statement, writes: { count: number }): SqliteStatement {
  const rows = statement.reader ? rowsOf(statement) : undefined;
  const ran = () => {
    if (!statement.readonly) writes.count += 1;
  };
  return {
    reader: statement.reader,
    all(parameters) {
      ran();
      return rows ? rows(statement.all(...parameters) as unknown[][]) : statement.all(...parameters);
    },
    run(parameters) {
      ran();
      return statement.run(...parameters);
    },
    *iterate(parameters) {
      ran();
      for (const values of statement.iterate(...parameters)) yield rows ? rows([values as unknown[]])[0] : values;
    },
  };
}

/**
 * Rows as arrays made objects by one function per statement, compiled from its columns: an object literal. Cheaper
 * than better-sqlite3's objects (built through the V8 API) and than a loop assigning each column by name, which
 * costs a slow keyed store a value (docs/performance.md, "Rows made objects"). The names are the statement's own
 * columns, from our SQL, written as string literals.
 */
function rowsOf(statement: Database.Statement): (values: unknown[][]) => Record<string, unknown>[] {
  statement.raw(true);
  const names = statement.columns().map((c) => c.name);
  // Compiled once per statement, from its column names.
  const row = new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as (
    values: unknown[],
  ) => Record<string, unknown>;
  return (list) => list.map(row);
}
