import { sql, type Kysely, type Migration } from 'kysely';
import { counterTriggers, counterTriggersPg, countersFor, longestEventMsPg, recount, type CounterSpec } from './counting.js';
import { isPostgres } from './steps.js';

/**
 * The counted lists as this migration counted them: follows and events by a look at their page's privacy
 * (their own copy of it, `secret_page`, came with migration 0007; migration 0012 counts by the copy).
 */
export function countersAsWritten(pg: boolean): readonly CounterSpec[] {
  const secret = (column: string) =>
    pg
      ? `coalesce((select case when p.privacy = 'secret' then 1 else 0 end from pages p where p.id = r.${column}), 0)`
      : `coalesce((select p.privacy = 'secret' from pages p where p.id = r.${column}), 0)`;
  const dims: Record<string, readonly string[]> = {
    follows: [
      'r.followable_type',
      'r.followable_id',
      'r.user_id',
      pg ? `(case when r.followable_type = 'Page' and ${secret('followable_id')} = 1 then 1 else 0 end)` : `(r.followable_type = 'Page' and ${secret('followable_id')})`,
    ],
    events: ['r.user_id', 'r.page_id', secret('page_id')],
  };
  return countersFor(pg).map((spec) => ({ ...spec, dims: dims[spec.list] ?? spec.dims }));
}

/**
 * Flat cost per request: composite indexes that follow each list's filters and order (so that every list
 * is an index walk), the page's administrator on access requests and invites (a Member's lists walk it),
 * and exact counts kept by triggers in the transaction of every write.
 */
export const flatCost: Migration = {
  async up(db: Kysely<any>) {
    const pg = isPostgres(db);
    const index = async (name: string, table: string, columns: string[]) =>
      db.schema.createIndex(name).on(table).columns(columns).execute();
    const drop = async (name: string) => db.schema.dropIndex(name).ifExists().execute();

    await drop('pages_privacy');
    await drop('pages_user_id');
    await drop('pages_page_configuration_id');
    await index('pages_privacy_id', 'pages', ['privacy', 'id']);
    await index('pages_user_id_id', 'pages', ['user_id', 'id']);
    await index('pages_user_privacy_id', 'pages', ['user_id', 'privacy', 'id']);
    await index('pages_config_id', 'pages', ['page_configuration_id', 'id']);
    await index('pages_config_privacy_id', 'pages', ['page_configuration_id', 'privacy', 'id']);
    await index('pages_config_user_id', 'pages', ['page_configuration_id', 'user_id', 'id']);
    await index('pages_config_user_privacy_id', 'pages', ['page_configuration_id', 'user_id', 'privacy', 'id']);

    await db.schema.createIndex('permission_sets_lower_name').on('permission_sets').expression(sql`lower(name)`).execute();
    await drop('users_permission_set_id');
    await index('users_role_id', 'users', ['permission_set_id', 'id']);

    await index('follows_user_id', 'follows', ['user_id', 'id']);
    await index('follows_user_type_id', 'follows', ['user_id', 'followable_type', 'id']);
    await index('follows_type_id', 'follows', ['followable_type', 'id']);
    await index('follows_followable_id', 'follows', ['followable_type', 'followable_id', 'id']);

    for (const table of ['page_access_requests', 'invites']) {
      await db.schema.alterTable(table).addColumn('page_owner_id', 'varchar(64)', (c) => c.notNull().defaultTo('')).execute();
      const page = table === 'invites' ? 'target_id' : 'page_id';
      await sql`update ${sql.table(table)} set page_owner_id = (select user_id from pages where pages.id = ${sql.ref(`${table}.${page}`)})`.execute(db);
      // Pages never change hands: the owner is written once, whoever inserts the row.
      if (pg) {
        // PostgreSQL: set on the row before it is written, rather than updated after (the same result).
        await sql
          .raw(
            `create function ${table}_page_owner() returns trigger language plpgsql as $$ begin ` +
              `new.page_owner_id := (select user_id from pages where pages.id = new.${page}); return new; end $$`,
          )
          .execute(db);
        await sql
          .raw(`create trigger ${table}_page_owner before insert on ${table} for each row execute function ${table}_page_owner()`)
          .execute(db);
      } else
        await sql
          .raw(
            `create trigger ${table}_page_owner after insert on ${table} begin ` +
              `update ${table} set page_owner_id = (select user_id from pages where pages.id = new.${page}) where id = new.id; end`,
          )
          .execute(db);
    }
    await drop('page_access_requests_user');
    await index('par_page_id', 'page_access_requests', ['page_id', 'id']);
    await index('par_page_state_id', 'page_access_requests', ['page_id', 'state', 'id']);
    await index('par_page_user_id', 'page_access_requests', ['page_id', 'user_id', 'id']);
    await index('par_user_id', 'page_access_requests', ['user_id', 'id']);
    await index('par_user_state_id', 'page_access_requests', ['user_id', 'state', 'id']);
    await index('par_state_id', 'page_access_requests', ['state', 'id']);
    await index('par_owner_id', 'page_access_requests', ['page_owner_id', 'id']);
    await index('par_owner_state_id', 'page_access_requests', ['page_owner_id', 'state', 'id']);

    await drop('invites_user_target');
    await drop('invites_sender');
    await index('invites_target_id', 'invites', ['target_id', 'id']);
    await index('invites_target_state_id', 'invites', ['target_id', 'state', 'id']);
    await index('invites_sender_id', 'invites', ['user_id', 'id']);
    await index('invites_sender_state_id', 'invites', ['user_id', 'state', 'id']);
    await index('invites_invited_id', 'invites', ['user_target_id', 'id']);
    await index('invites_invited_state_id', 'invites', ['user_target_id', 'state', 'id']);
    await index('invites_state_id', 'invites', ['state', 'id']);
    await index('invites_owner_id', 'invites', ['page_owner_id', 'id']);
    await index('invites_owner_state_id', 'invites', ['page_owner_id', 'state', 'id']);

    await drop('events_page');
    await index('events_page_start', 'events', ['page_id', 'start_date', 'id']);

    await db.schema
      .createTable('list_counts')
      .addColumn('key', 'varchar(400)', (c) => c.primaryKey())
      .addColumn('n', 'integer', (c) => c.notNull())
      .execute();
    for (const spec of countersAsWritten(pg)) {
      for (const trigger of pg ? counterTriggersPg(spec) : counterTriggers(spec)) await sql.raw(trigger).execute(db);
      // PostgreSQL stores start empty (or nearly: the default roles): an empty table has nothing to recount.
      if (pg && !(await db.selectFrom(spec.table).select(sql`1`.as('one')).limit(1).executeTakeFirst())) continue;
      const counts = await recount(db, spec);
      for (const [key, n] of counts) await db.insertInto('list_counts').values({ key, n }).execute();
    }
    // The longest event so far bounds how far back an event still running may have started.
    if (pg) {
      // Exact milliseconds (SQLite's julianday arithmetic may come out a millisecond short: its +1 covers that).
      const longest = longestEventMsPg;
      await sql
        .raw(
          `create function events_longest() returns trigger language plpgsql as $$ begin ` +
            `insert into list_counts (key, n) values ('events.longest_ms', ${longest('new.')}) ` +
            `on conflict (key) do update set n = greatest(list_counts.n, excluded.n); return null; end $$`,
        )
        .execute(db);
      await sql.raw(`create trigger events_longest after insert on events for each row execute function events_longest()`).execute(db);
      await sql.raw(`insert into list_counts (key, n) select 'events.longest_ms', coalesce(max(${longest('')}), 0) from events`).execute(db);
      return;
    }
    await sql
      .raw(
        `create trigger events_longest after insert on events begin ` +
          `insert into list_counts (key, n) values ('events.longest_ms', ` +
          `cast((julianday(new.end_date) - julianday(new.start_date)) * 86400000 as integer) + 1) ` +
          `on conflict (key) do update set n = max(n, excluded.n); end`,
      )
      .execute(db);
    await sql`insert into list_counts (key, n) select 'events.longest_ms', coalesce(max(cast((julianday(end_date) - julianday(start_date)) * 86400000 as integer) + 1), 0) from events`.execute(db);
  },
};
