import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './steps.js';

/**
 * A Member's list as one index walk (issue 7): the rows they may see are told apart entry by entry on the
 * index that orders the list, instead of merging one walk per kind of row.
 *
 * - Pages: the indexes that order a list by id carry the privacy after the id, so that "not secret, or one
 *   of the secret pages I see" is tested on the index entry itself.
 * - Follows and events: a row about a secret page says so itself (`secret_page`, 1 or 0, copied from the
 *   page by triggers), and the indexes that order those lists carry it (and, for follows, the page) after
 *   the order, for the same test.
 *
 * The triggers are written from data (`SECRET_PAGE_COPIES`), for SQLite and for PostgreSQL (PL/pgSQL).
 */
export interface SecretPageCopy {
  /** The table whose rows carry the copy, and its column that names the page. */
  table: string;
  pageColumn: string;
  /** An SQL condition on the row (alias `r`) for the rows about a page (a follow of a user is not). */
  about?: string;
}

export const SECRET_PAGE_COPIES: readonly SecretPageCopy[] = [
  { table: 'follows', pageColumn: 'followable_id', about: `r.followable_type = 'Page'` },
  { table: 'events', pageColumn: 'page_id' },
];

// A CASE, not the comparison itself: PostgreSQL's comparisons are booleans, the column an integer (1 or 0).
const secretOf = (copy: SecretPageCopy, alias: string) =>
  `coalesce((select case when p.privacy = 'secret' then 1 else 0 end from pages p where p.id = ${alias}.${copy.pageColumn}), 0)`;

const aboutOf = (copy: SecretPageCopy, alias: string) => (copy.about ? copy.about.replace(/\br\./g, `${alias}.`) : '1 = 1');

/** The SQLite triggers that keep one copy: on the row's insert, and on the page's change of privacy. */
export function secretPageTriggers(copy: SecretPageCopy): string[] {
  const { table, pageColumn } = copy;
  return [
    // A writer that set the copy right (the store's inserts do) costs one look at the page, not an update.
    `create trigger ${table}_secret_page after insert on ${table} when ${aboutOf(copy, 'new')} and ` +
      `new.secret_page is not ${secretOf(copy, 'new')} begin ` +
      `update ${table} set secret_page = ${secretOf(copy, 'new')} where id = new.id; end`,
    `create trigger pages_privacy_to_${table} after update of privacy on pages begin ` +
      `update ${table} set secret_page = (new.privacy = 'secret') where ${pageColumn} = new.id and ${aboutOf(copy, table)}; end`,
  ];
}

/** The same triggers in PL/pgSQL: a function and a row-level AFTER trigger each. */
export function secretPageTriggersPg(copy: SecretPageCopy): string[] {
  const { table, pageColumn } = copy;
  return [
    `create function ${table}_secret_page() returns trigger language plpgsql as $$ begin ` +
      `if ${aboutOf(copy, 'new')} and new.secret_page is distinct from ${secretOf(copy, 'new')} then ` +
      `update ${table} set secret_page = ${secretOf(copy, 'new')} where id = new.id; end if; return null; end $$`,
    `create trigger ${table}_secret_page after insert on ${table} for each row execute function ${table}_secret_page()`,
    `create function pages_privacy_to_${table}() returns trigger language plpgsql as $$ begin ` +
      `update ${table} set secret_page = case when new.privacy = 'secret' then 1 else 0 end ` +
      `where ${pageColumn} = new.id and ${aboutOf(copy, table)}; return null; end $$`,
    `create trigger pages_privacy_to_${table} after update of privacy on pages for each row execute function pages_privacy_to_${table}()`,
  ];
}

/** Sets every row's copy from the pages (the migration, and a seed that wrote rows with the triggers set aside). */
export async function refreshSecretPages(db: Kysely<any>): Promise<void> {
  for (const copy of SECRET_PAGE_COPIES)
    await sql
      .raw(
        `update ${copy.table} set secret_page = coalesce((select case when p.privacy = 'secret' then 1 else 0 end from pages p ` +
          `where p.id = ${copy.table}.${copy.pageColumn} and ${aboutOf(copy, copy.table)}), 0)`,
      )
      .execute(db);
}

export const singleWalks: Migration = {
  async up(db: Kysely<any>) {
    const index = async (name: string, table: string, columns: string[]) =>
      db.schema.createIndex(name).on(table).columns(columns).execute();
    const drop = async (name: string) => db.schema.dropIndex(name).ifExists().execute();

    // Pages: every id-ordered index carries the privacy after the id.
    await index('pages_id_privacy', 'pages', ['id', 'privacy']);
    await drop('pages_user_id_id');
    await index('pages_user_id_privacy', 'pages', ['user_id', 'id', 'privacy']);
    await drop('pages_config_id');
    await index('pages_config_id_privacy', 'pages', ['page_configuration_id', 'id', 'privacy']);
    await drop('pages_config_user_id');
    await index('pages_config_user_id_privacy', 'pages', ['page_configuration_id', 'user_id', 'id', 'privacy']);

    for (const copy of SECRET_PAGE_COPIES) {
      await db.schema
        .alterTable(copy.table)
        .addColumn('secret_page', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      const triggers = isPostgres(db) ? secretPageTriggersPg(copy) : secretPageTriggers(copy);
      for (const trigger of triggers) await sql.raw(trigger).execute(db);
    }
    await refreshSecretPages(db);

    // Follows: ordered by id, then what a Member's test reads (the copy, and the page for the ones they see).
    const visibility = ['secret_page', 'followable_id'];
    await index('follows_id_visibility', 'follows', ['id', ...visibility]);
    await drop('follows_user_id');
    await index('follows_user_id_visibility', 'follows', ['user_id', 'id', ...visibility]);
    await drop('follows_user_type_id');
    await index('follows_user_type_id_visibility', 'follows', ['user_id', 'followable_type', 'id', ...visibility]);
    await drop('follows_type_id');
    await index('follows_type_id_visibility', 'follows', ['followable_type', 'id', ...visibility]);
    await drop('follows_followable_id');
    await index('follows_followable_id_visibility', 'follows', ['followable_type', 'followable_id', 'id', 'secret_page']);

    // Events: in date order, then the copy and the page, and the end (the dated lists test it on each entry).
    await drop('events_start');
    await index('events_start_visibility', 'events', ['start_date', 'id', 'secret_page', 'page_id', 'end_date']);
    await drop('events_user');
    await index('events_user_visibility', 'events', ['user_id', 'start_date', 'id', 'secret_page', 'page_id', 'end_date']);
    await drop('events_page_start');
    await index('events_page_visibility', 'events', ['page_id', 'start_date', 'id', 'secret_page', 'end_date']);
  },
};
