import { sql, type Kysely, type Migration } from 'kysely';
import { inOneTransaction, isPostgres } from './steps.js';

/**
 * The columns of each table whose records a list keeps by id as text (`KEPT_RECORDS` in `records-json.ts`):
 * those its text is made of. (The events' are `EVENT_COLUMNS`, migration 0019.)
 */
export const KEPT_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  follows: ['id', 'user_id', 'followable_type', 'followable_id', 'created_at'],
  page_access_requests: ['id', 'page_id', 'user_id', 'state', 'is_validate', 'created_at', 'updated_at'],
  invites: ['id', 'target_type', 'target_id', 'user_id', 'user_target_id', 'state', 'is_validate', 'is_accepted', 'created_at', 'updated_at'],
};

/**
 * A version of a table's existing records (SQLite), `records:<table>` in `table_versions`, bumped by triggers
 * in the transaction of every delete, of every update of a column their text is made of, and of every insert of an
 * id that exists (`INSERT OR REPLACE`, whose delete fires no trigger), whoever writes: a
 * text kept by id stays exact while it stands still. An insert does not bump it: it adds a record that no list
 * has kept yet (its id is new; one deleted and written again bumped it with the delete), so a follow created
 * does not retire the follows kept, as the table's own version would (a page's count and positions still go
 * with that one). A copy's own bookkeeping (a follow's `secret_page`, a request's `page_owner_id`) is not
 * in the text and does not bump it.
 *
 * PostgreSQL keeps no versions (migration 0010).
 */
export const keptRecords: Migration = {
  async up(db: Kysely<any>) {
    if (isPostgres(db)) return;
    await inOneTransaction(db, async () => {
      for (const [table, columns] of Object.entries(KEPT_COLUMNS)) await versionRecords(db, table, columns);
    });
  },
};

/** The version `records:<table>` and the triggers that bump it (see `keptRecords`), in the caller's transaction. */
export async function versionRecords(db: Kysely<any>, table: string, columns: readonly string[]): Promise<void> {
  const name = `records:${table}`;
  await sql`insert into table_versions (name, v) values (${name}, 0) on conflict (name) do nothing`.execute(db);
  const bump = `update table_versions set v = v + 1 where name = '${name}';`;
  await sql.raw(`create trigger if not exists ${table}_records_version_delete after delete on ${table} begin ${bump} end`).execute(db);
  // `INSERT OR REPLACE` (`REPLACE INTO`) deletes the row it replaces without firing delete triggers (unless
  // `recursive_triggers` is on): a record written again with its id is told apart before it lands.
  await sql
    .raw(
      `create trigger if not exists ${table}_records_version_replace before insert on ${table} ` +
        `when exists (select 1 from ${table} where id = new.id) begin ${bump} end`,
    )
    .execute(db);
  await sql
    .raw(`create trigger if not exists ${table}_records_version_update after update of ${columns.join(', ')} on ${table} begin ${bump} end`)
    .execute(db);
}
