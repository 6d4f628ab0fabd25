import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database as Schema } from './schema.js';
import { createKyselyStore, migrateToLatest, type Store } from './store.js';

/**
 * Opens (creating if needed) the SQLite store in one file, in WAL mode with foreign keys on, and applies
 * the migrations. `:memory:` works for throwaway stores.
 */
export async function openSqliteStore(file: string): Promise<Store> {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return createKyselyStore(db, 'sqlite');
}
