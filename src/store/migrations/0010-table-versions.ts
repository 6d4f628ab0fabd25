import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './steps.js';

/**
 * Tables whose writes are not versioned: the versions themselves, the kept counts (a count changes only with
 * a write to the table it counts, which bumps that table; `admin check --repair` bumps every table itself),
 * and the migrator's own.
 */
const UNVERSIONED = new Set(['table_versions', 'list_counts', 'kysely_migration', 'kysely_migration_lock']);

/** The SQLite triggers that bump one table's version in the transaction of each of its writes. */
export function versionTriggers(table: string): string[] {
  const bump = `update table_versions set v = v + 1 where name = '${table}';`;
  return ['insert', 'update', 'delete'].map(
    (event) => `create trigger ${table}_version_${event} after ${event} on ${table} begin ${bump} end`,
  );
}

/**
 * A version per table (SQLite), for exact read caches that a write elsewhere does not retire: a follow
 * need not forget what is remembered of the pages list. `table_versions` holds one row per table, bumped by
 * triggers in the transaction of every insert, update and delete, whoever writes (another worker, another
 * process, an import, a direct SQL seed), so a reader finds out from the one small table which tables moved
 * since it last looked (`src/store/sqlite.ts`). A table created later without these triggers has no row,
 * and a read of it falls back to the store's single data version.
 *
 * PostgreSQL keeps no versions: its store remembers nothing between requests (no data version), so there
 * is nothing to read them for.
 */
export const tableVersions: Migration = {
  async up(db: Kysely<any>) {
    if (isPostgres(db)) return;
    await sql`create table table_versions (name text primary key, v integer not null) without rowid`.execute(db);
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
    for (const { name } of rows) {
      if (UNVERSIONED.has(name)) continue;
      await sql`insert into table_versions (name, v) values (${name}, 0)`.execute(db);
      for (const trigger of versionTriggers(name)) await sql.raw(trigger).execute(db);
    }
  },
};
