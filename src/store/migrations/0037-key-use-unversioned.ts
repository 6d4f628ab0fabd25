import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './steps.js';

/**
 * SQLite: writing a key's `last_used_at` (once per remembered pair's lifetime, as the key is used) no longer moves
 * the keys' version in `table_versions`, as PostgreSQL's access notification already leaves it out (0011). Before,
 * each of those writes made every server read again every key pair it remembered. A snapshot: it imports no live code.
 */
export const keyUseUnversioned: Migration = {
  async up(db: Kysely<any>) {
    if (isPostgres(db)) return;
    await sql`drop trigger if exists api_keys_version_update`.execute(db);
    await sql`create trigger api_keys_version_update after update of id, user_id, api_key, secret_hash, created_at on api_keys
      begin update table_versions set v = v + 1 where name = 'api_keys'; end`.execute(db);
  },
};
