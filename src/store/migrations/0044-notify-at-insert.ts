import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './steps.js';

/** The channel of new notifications; the payload is `schema|origin|user id,user id,…` (the table's schema). */
export const NOTIFICATIONS_CHANNEL = 'agora_notifications';

/** The session setting that names the writing store (`-c agora.origin=…` on its connections): it skips its own. */
export const ORIGIN_SETTING = 'agora.origin';

/** PostgreSQL-only, like migration 0011's (the schema-parity test leaves it out of the comparison). */
export const NOTIFY_TRIGGER = 'notifications_notify_others';

/**
 * PostgreSQL: each statement that adds notifications tells the other processes whose they are, by `NOTIFY
 * agora_notifications` in the writing transaction (delivered at its commit, and only then). The store sent that
 * NOTIFY itself, one more round trip in every transaction that notified (a follow's eighth); the trigger sends it
 * with the insert. At most 200 ids a NOTIFY: a payload stays under PostgreSQL's 8,000 bytes. SQLite has no NOTIFY
 * (other processes look at the notifications' table version): nothing happens there. May run again.
 */
export const notifyAtInsert: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`create or replace function agora_notifications_added() returns trigger language plpgsql as $$
      declare
        ids text;
      begin
        for ids in
          select string_agg(user_id, ',') from (select user_id, row_number() over () - 1 as i from added) numbered group by i / 200
        loop
          perform pg_notify(${sql.lit(NOTIFICATIONS_CHANNEL)},
            tg_table_schema || '|' || coalesce(current_setting(${sql.lit(ORIGIN_SETTING)}, true), '') || '|' || ids);
        end loop;
        return null;
      end $$`.execute(db);
    await sql`drop trigger if exists ${sql.id(NOTIFY_TRIGGER)} on notifications`.execute(db);
    await sql`create trigger ${sql.id(NOTIFY_TRIGGER)} after insert on notifications referencing new table as added
      for each statement execute function agora_notifications_added()`.execute(db);
  },
};
