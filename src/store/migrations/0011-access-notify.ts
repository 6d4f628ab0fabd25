import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './steps.js';

/** The channel of these triggers; the payload is `schema.table` (several agora schemas may share one database). */
export const ACCESS_CHANNEL = 'agora_access';

/** The tables whose changes notify: what the verified-key and caller caches are kept under (`Store.versionOf`). */
export const ACCESS_TABLES: ReadonlySet<string> = new Set(['api_keys', 'users', 'permission_sets']);

/** PostgreSQL-only triggers end with this (the schema-parity test leaves them out of the comparison). */
export const ACCESS_TRIGGER_SUFFIX = '_notify_access';

/**
 * PostgreSQL: every committed change to an API key, a user or a role sends `NOTIFY agora_access` (a statement
 * trigger, in the writing transaction, so it is delivered at commit and only then), and each `agora serve`
 * listening drops the verified keys and callers it remembers (`src/store/pg-listener.ts`). `last_used_at`,
 * written as keys are used, is left out (`UPDATE OF` the other columns). Inserts change nothing remembered.
 * SQLite needs none of it (`PRAGMA data_version` tells every connection): nothing happens there.
 */
export const accessNotify: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`create function agora_access_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(ACCESS_CHANNEL)}, tg_table_schema || '.' || tg_table_name);
        return null;
      end $$`.execute(db);
    const trigger = async (table: string, name: string, events: string) =>
      sql`create trigger ${sql.id(`${table}_${name}${ACCESS_TRIGGER_SUFFIX}`)} after ${sql.raw(events)} on ${sql.id(table)}
        for each statement execute function agora_access_changed()`.execute(db);
    await trigger('api_keys', 'update', 'update of api_key, secret_hash, user_id');
    await trigger('api_keys', 'delete', 'delete');
    await trigger('users', 'change', 'update or delete');
    await trigger('permission_sets', 'change', 'update or delete');
  },
};
