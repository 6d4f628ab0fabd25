import Database from 'better-sqlite3';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database as Schema } from './schema.js';
import { SecretBox } from './secret-box.js';
import { createKyselyStore, migrateToLatest, type Store } from './store.js';

export interface SqliteStoreOptions {
  /** AGORA_SECRET_KEY: seals stored secrets; without it, a key file beside the database (`<db>.key`, 0600). */
  secretKey?: string;
  /** Sees every query the store runs, with its parameters (the query-plan test). */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Told the migrations applied on opening (none when the schema was current). */
  onMigrated?: (applied: string[]) => void;
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
  // SQLite's data_version moves when another connection (another process) commits; our own writes are
  // counted as they run. Together they change whenever the data may have. data_version is read afresh when
  // a request arrives (`fresh`: the server asks so first thing), then kept for the rest of that turn of the
  // event loop: a commit that another process answered before a request arrived is seen by that request.
  const otherWriters = sqlite.prepare('PRAGMA data_version').pluck();
  let seen: number | undefined;
  let forgetting = false;
  const forget = () => {
    seen = undefined;
    forgetting = false;
  };
  const dataVersion = (fresh = false) => {
    if (fresh || seen === undefined) {
      seen = otherWriters.get() as number;
      if (!forgetting) {
        forgetting = true;
        setImmediate(forget);
      }
    }
    return `${seen}.${writes.count}`;
  };
  const store = createKyselyStore(db, 'sqlite', { dataVersion, secrets });
  await store.webhooks.sealClearSecrets();
  return store;
}

/** Creates the database file 0600 (and its folder 0700) when it does not exist yet; an existing one is left as it is. */
function createPrivately(file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

/**
 * Kysely prepares every query it runs; preparing costs tens of microseconds, more than running most of
 * ours. Queries are few shapes with bound parameters, so each prepared statement is kept and reused
 * (bounded, for the shapes that vary with the length of an `in (…)` list).
 */
function withStatementCache(sqlite: Database.Database, writes: { count: number }, max = 1000): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= max) statements.clear();
        statement = countingWrites(sqlite.prepare(sql), writes);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * A statement as Kysely runs it: rows read as arrays (better-sqlite3's `raw` mode) and made into objects
 * here, by plain assignments, cheaper than better-sqlite3's own objects (which it builds through the V8
 * API): a page of 26 pages runs in 18 % fewer instructions. The objects are the same: one property per
 * column name, in column order, a later column of the same name taking the earlier one's place.
 * A statement that writes bumps the write count each time it runs. `readonly`, not `reader`: an
 * `INSERT … RETURNING` returns rows (a "reader") and writes all the same.
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

/** Switches a reading statement to arrays, and answers the function that makes them the rows' objects. */
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
