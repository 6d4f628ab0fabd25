import Database from 'better-sqlite3';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database as Schema } from './schema.js';
import { startCheckpointer } from './checkpointer.js';
import { SecretBox } from './secret-box.js';
import { readDirectly, type DirectReader } from './paging.js';
import type { OtherProcessesWatch } from './notification-watch.js';
import { createKyselyStore, migrateToLatest, type Store } from './store.js';

export interface SqliteStoreOptions {
  /** AGORA_SECRET_KEY: seals stored secrets; without it, a key file beside the database (`<db>.key`, 0600). */
  secretKey?: string;
  /** Sees every query the store runs, with its parameters (the query-plan test). */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Told the migrations applied on opening (none when the schema was current). */
  onMigrated?: (applied: string[]) => void;
  /**
   * Checkpoints the write-ahead log on a thread of its own instead of in the commit that fills it
   * (`src/store/checkpointer.ts`): for a long-running server (`agora serve`), not a short command.
   */
  checkpointInBackground?: boolean;
  /** How often that thread looks at the log, in milliseconds (200). */
  checkpointIntervalMs?: number;
  /** How often, while notifications are watched, the store looks whether another process wrote some (1,000 ms). */
  notificationPollMs?: number;
}

/**
 * Opens (creating if needed) the SQLite store in one file, in WAL mode with foreign keys on, and applies
 * the migrations. `:memory:` works for throwaway stores. A database agora creates is private: the file
 * (and so its `-wal` and `-shm`, which SQLite creates with the file's mode) 0600, its folder 0700.
 */
export async function openSqliteStore(file: string, options: SqliteStoreOptions = {}): Promise<Store> {
  const inMemory = file === ':memory:' || file === '';
  if (!inMemory) createPrivately(file);
  const secrets = options.secretKey
    ? SecretBox.fromString(options.secretKey)
    : inMemory
      ? SecretBox.ephemeral()
      : SecretBox.fromKeyFile(`${file}.key`);
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Statement and savepoint journals (every write runs in a savepoint of its group) in memory, not temporary files.
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
  // With the log checkpointed in the background, a commit checkpoints only if that falls far behind; should the
  // thread fail, commits checkpoint again as by SQLite's default.
  const checkpointer =
    options.checkpointInBackground && !inMemory
      ? startCheckpointer(file, {
          intervalMs: options.checkpointIntervalMs,
          onError: () => sqlite.open && sqlite.pragma('wal_autocheckpoint = 1000'),
        })
      : undefined;
  if (checkpointer) sqlite.pragma('wal_autocheckpoint = 10000');
  // The data version: SQLite's data_version as a second connection sees it (moved by any other connection's
  // commit, ours included) and this store's own writes counted as they run: together they change whenever the
  // data may have. Read afresh when a request arrives (`fresh`) and after each of our commits, then kept for the
  // rest of that turn of the event loop. (`:memory:` has no second connection: the write count sees every write.)
  const watcher = inMemory ? sqlite : new Database(file, { readonly: true, fileMustExist: true });
  let reads: CommittedReads | undefined;
  if (watcher !== sqlite) {
    watcher.pragma('busy_timeout = 5000');
    // Both connections read the database file through a memory map (up to 2 GiB): no read call and copy per page.
    watcher.pragma('mmap_size = 2147418112');
    sqlite.pragma('mmap_size = 2147418112');
    reads = committedReads(sqlite, watcher);
    // The hot reads outside transactions (`rowsOfRead`): committed data only.
    readDirectly(db, directReader(reads, onQuery));
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
  const versions = reads && tableVersions(reads, dataVersion);
  const store = createKyselyStore(db, 'sqlite', {
    dataVersion,
    versions,
    otherProcesses: versions && watchOtherProcesses(() => versions.of(['notifications'], true), options.notificationPollMs ?? 1000),
    committed: forget,
    beforeGroup: checkpointer && (() => checkpointer.idle()),
    control: (statement) => sqlite.exec(statement),
    secrets,
    // Before the writer: the last connection to close checkpoints the WAL and removes it, which a
    // read-only one cannot.
    beforeClose: async () => {
      await checkpointer?.stop();
      if (watcher !== sqlite) watcher.close();
    },
  });
  await store.webhooks.sealClearSecrets();
  return store;
}

/**
 * Where the reads outside the store's transactions run: committed data only, on the writing connection while it
 * has no transaction open, else on the read-only one (the watcher); never a transaction of ours still open. The
 * writer is preferred for its page cache, which SQLite empties whenever another connection committed.
 */
interface CommittedReads {
  /** What `make` makes of the connection the reads run on now (a statement, a cache of them): once per connection. */
  perConnection<T>(make: (connection: Database.Database) => T): () => T;
}

function committedReads(writer: Database.Database, watcher: Database.Database): CommittedReads {
  // `inTransaction` is SQLite's autocommit flag: set by BEGIN and SAVEPOINT (every write of the store's runs in a
  // group's `begin immediate`), and not by a writing statement still being iterated outside one (its rows, not
  // yet committed, would be seen on the writer). The store iterates none: writes run to their end (`all`/`run`).
  const connection = () => (writer.inTransaction ? watcher : writer);
  const perConnection = <T>(make: (on: Database.Database) => T): (() => T) => {
    const made = new Map<Database.Database, T>();
    return () => {
      const on = connection();
      let value = made.get(on);
      if (value === undefined) made.set(on, (value = make(on)));
      return value;
    };
  };
  return { perConnection };
}

/**
 * Per-table versions (a row per table, bumped by triggers in every writing transaction), read as committed
 * (`CommittedReads`) and again only when the data version moved: a cache keyed by them is retired by writes to
 * the tables it read, not by every write. A table without a version answers the store's data version.
 */
function tableVersions(reads: CommittedReads, dataVersion: (fresh?: boolean) => string): { of(tables: readonly string[], fresh?: boolean): string } {
  const versionsOf = reads.perConnection((on) => on.prepare('select name, v from table_versions').raw());
  let vector = new Map<string, number>();
  let readAt: string | undefined;
  return {
    of(tables, fresh) {
      // Again after any commit seen, and after each write of ours (its commit then tells `look`).
      const at = dataVersion(fresh);
      if (at !== readAt) {
        vector = new Map(versionsOf().all() as [string, number][]);
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
 * Other processes on the same file (`serve --workers`, an import) tell of nothing: while notifications are
 * watched, one look every `pollMs` at the notifications table's version; when it moved, "anyone may have" new
 * ones. This process's own are told at their commit.
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
 * Reads straight from SQLite on the connection `CommittedReads` picks, synchronously, not queued behind a group of
 * writes: each statement prepared once per connection (bounded). A statement that is not a pure read is left to
 * Kysely (undefined). Each runs to its end, so no read transaction stays open between them.
 */
function directReader(reads: CommittedReads, onQuery: ((sql: string, parameters: readonly unknown[]) => void) | undefined, max = 1000): DirectReader {
  const statementsOf = reads.perConnection((connection) => ({ connection, statements: new Map<string, ((parameters: readonly unknown[]) => Record<string, unknown>[]) | null>() }));
  return {
    rows(compiled) {
      const { connection, statements } = statementsOf();
      let read = statements.get(compiled.sql);
      if (read === undefined) {
        if (statements.size >= max) statements.clear();
        const statement = connection.prepare(withStableLimits(compiled.sql));
        const objects = statement.readonly && statement.reader ? rowsOf(statement) : undefined;
        read = objects ? (parameters) => objects(statement.all(...parameters) as unknown[][]) : null;
        statements.set(compiled.sql, read);
      }
      if (!read) return undefined;
      onQuery?.(compiled.sql, compiled.parameters);
      return read(compiled.parameters);
    },
  };
}

/**
 * The statement with its bound LIMIT and OFFSET written `? + 0`: SQLite (with STAT4) lets a bound LIMIT's value
 * steer its plan and so re-prepares the statement whenever it is bound anew; an expression it does not look at.
 * (The store's SQL never holds `limit ?` inside a string literal: every value is bound.)
 */
export function withStableLimits(sql: string): string {
  return sql.replace(/\b(limit|offset) \?(?![ \t\n]*[-+*/|%&<>=!,]|\d)/gi, '$1 ? + 0');
}

/** Creates the database file 0600 (and its folder 0700) when it does not exist yet; an existing one is left as it is. */
function createPrivately(file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

/**
 * Kysely prepares every query it runs, which costs more than running most of ours: each prepared statement is
 * kept and reused (bounded, for the shapes that vary with the length of an `in (…)` list).
 */
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

/**
 * A statement as Kysely runs it, its rows made objects by `rowsOf`. One that writes bumps the write count each time
 * it runs (`readonly`, not `reader`: an `INSERT … RETURNING` returns rows and writes all the same).
 */
function countingWrites(statement: Database.Statement, writes: { count: number }): SqliteStatement {
  const rows = statement.reader ? rowsOf(statement) : undefined;
  const all = rows
    ? (parameters: readonly unknown[]) => rows(statement.all(...parameters) as unknown[][])
    : (parameters: readonly unknown[]) => statement.all(...parameters);
  const iterate = rows
    ? function* (parameters: readonly unknown[]) {
        for (const values of statement.iterate(...parameters)) yield rows([values as unknown[]])[0];
      }
    : (parameters: readonly unknown[]) => statement.iterate(...parameters);
  if (statement.readonly) return { reader: statement.reader, all, run: (parameters) => statement.run(...parameters), iterate };
  return {
    reader: statement.reader,
    all: (parameters) => {
      writes.count += 1;
      return all(parameters);
    },
    run: (parameters) => {
      writes.count += 1;
      return statement.run(...parameters);
    },
    iterate: (parameters) => {
      writes.count += 1;
      return iterate(parameters);
    },
  };
}

/**
 * Switches a reading statement to arrays and answers what makes them the rows' objects, by plain assignments:
 * cheaper than better-sqlite3's own objects, built through the V8 API, and the same objects.
 */
function rowsOf(statement: Database.Statement): (values: unknown[][]) => Record<string, unknown>[] {
  statement.raw(true);
  const names = statement.columns().map((c) => c.name);
  return (list) => {
    const objects = new Array<Record<string, unknown>>(list.length);
    for (let r = 0; r < list.length; r++) {
      const values = list[r]!;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
      objects[r] = row;
    }
    return objects;
  };
}
