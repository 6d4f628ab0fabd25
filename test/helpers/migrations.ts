import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Migration } from 'kysely';
import pg from 'pg';
import { SqliteTypesOnPostgres } from '../../src/store/dialect.js';
import { openRaw } from './store-target.js';

/** The folder of the numbered migrations, and the name of each (`0001-foundation`), in file order. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/store/migrations', import.meta.url));
export const migrationFiles = (): string[] =>
  readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d{4}-.*\.ts$/.test(file))
    .sort()
    .map((file) => file.slice(0, -'.ts'.length));

/** Each migration by its name, read from its file (the one export of it that has an `up`). */
async function migrationsByName(): Promise<Map<string, Migration>> {
  const found = new Map<string, Migration>();
  for (const name of migrationFiles()) {
    const module = (await import(join(MIGRATIONS_DIR, `${name}.ts`))) as Record<string, unknown>;
    const migrations = Object.values(module).filter((value): value is Migration => typeof (value as Migration)?.up === 'function');
    if (migrations.length !== 1) throw new Error(`${name}: ${migrations.length} migrations exported, not one`);
    found.set(name, migrations[0]!);
  }
  return found;
}

/**
 * A store as an older agora left it: the migrations `names` applied in that order and recorded as Kysely's
 * migrator records them, the others not. In one transaction, PostgreSQL with SQLite's types, as the store does.
 */
export async function migrateOnly(target: string, names: readonly string[]): Promise<void> {
  const migrations = await migrationsByName();
  const postgres = target.startsWith('postgres');
  const pool = postgres ? new pg.Pool({ connectionString: target, max: 1 }) : undefined;
  // (SQLite: its log as the store keeps it, and no sync to the disk after each statement: a test's time.)
  const db = new Kysely<unknown>({
    dialect: pool ? new PostgresDialect({ pool }) : new SqliteDialect({ database: () => Promise.resolve(unsynced(target)) }),
  });
  const run = async (trx: Kysely<unknown>) => {
    // The migrator's tables, as Kysely's migrator (and the store's on PostgreSQL) makes them.
    await trx.schema
      .createTable('kysely_migration')
      .addColumn('name', 'varchar(255)', (col) => col.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (col) => col.notNull())
      .execute();
    await trx.schema
      .createTable('kysely_migration_lock')
      .addColumn('id', 'varchar(255)', (col) => col.notNull().primaryKey())
      .addColumn('is_locked', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
    await sql`insert into kysely_migration_lock (id, is_locked) values ('migration_lock', 0)`.execute(trx);
    for (const name of names) {
      const migration = migrations.get(name);
      if (!migration) throw new Error(`no migration ${name}`);
      await migration.up(trx);
      // Apart in time, so that their order is the one they were applied in.
      await new Promise((resolve) => setTimeout(resolve, 2));
      await sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(trx);
    }
  };
  try {
    await (postgres ? db.withPlugin(new SqliteTypesOnPostgres()) : db).transaction().execute(run);
  } finally {
    await db.destroy();
  }
}

function unsynced(file: string): Database.Database {
  const database = new Database(file);
  database.pragma('journal_mode = wal');
  database.pragma('synchronous = off');
  return database;
}

/**
 * Everything a store's schema holds, as text: SQLite's `sqlite_master`, or on PostgreSQL each table's columns
 * (types, defaults, nullability), constraints, indexes, triggers and functions as the catalog prints them; and
 * the rows the migrations write (ids, given at random, left out).
 */
export async function schemaDump(target: string): Promise<Record<string, string[]>> {
  const raw = await openRaw(target);
  const postgres = target.startsWith('postgres');
  // Without the schema's own name, which PostgreSQL's catalog prints in front of each of its objects.
  const list = async (query: string) =>
    (await raw.all<{ x: string }>(postgres ? `select replace(x, current_schema() || '.', '') as x from (${query}) q` : query)).map((r) => r.x).sort();
  try {
    const rows = {
      roles: await list(`select name || ' ' || coalesce(system_key, '') || ' ' || permissions as x from permission_sets`),
      counts: await list(`select key || '=' || n as x from list_counts`),
      migrations: await list(`select name as x from kysely_migration`),
    };
    if (!postgres)
      return {
        objects: await list(`select type || ' ' || name || ' on ' || tbl_name || ': ' || coalesce(sql, '') as x from sqlite_master`),
        versions: await list(`select name as x from table_versions`),
        ...rows,
      };
    return {
      columns: await list(
        `select table_name || '.' || column_name || ' ' || data_type || ' ' || coalesce(collation_name, '') || ' ' || is_nullable
           || ' ' || coalesce(column_default, '') || ' #' || ordinal_position as x
         from information_schema.columns where table_schema = current_schema()`,
      ),
      constraints: await list(
        `select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) as x
         from pg_constraint where connamespace = current_schema()::regnamespace`,
      ),
      indexes: await list(`select indexdef as x from pg_indexes where schemaname = current_schema()`),
      triggers: await list(
        `select pg_get_triggerdef(g.oid) as x from pg_trigger g join pg_class c on c.oid = g.tgrelid
         where c.relnamespace = current_schema()::regnamespace and not g.tgisinternal`,
      ),
      functions: await list(`select pg_get_functiondef(p.oid) as x from pg_proc p where p.pronamespace = current_schema()::regnamespace`),
      ...rows,
    };
  } finally {
    await raw.close();
  }
}
