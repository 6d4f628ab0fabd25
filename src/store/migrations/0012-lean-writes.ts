import { sql, type Kysely, type Migration } from 'kysely';
import { countersFor, replaceCounterTriggers } from './counting.js';
import { inOneTransaction } from './steps.js';
import { SECRET_PAGE_COPIES } from './0007-single-walks.js';

/** The counted lists whose keys now read the row's own copy of its page's secrecy. */
export const COUNTED_BY_COPY: readonly string[] = ['follows', 'events'];

/**
 * Fewer pages and fewer statements per write (issue 7: a follow's server CPU):
 *
 * - Follows and events are counted by their own copy of their page's secrecy (`secret_page`, migration 0007),
 *   not by a look at the page for each of the keys that name it (a follow moves 16 keys, 8 of them looked the
 *   page up). The copies are first made to agree with the pages (they do, unless rows were written with the
 *   triggers set aside), so the kept counts stand as they are; a page's change of privacy, which rewrites the
 *   copies, now moves the rows between counts as well.
 * - SQLite: `list_counts` is a WITHOUT ROWID table, its rows kept in the primary key's b-tree itself. A count
 *   moved was a look in the key's index and a write to the row elsewhere in the table (two pages to write at
 *   the commit, most of them far apart); it is now one. A follow's commit wrote some 13 pages of counts.
 *
 * It runs in one transaction, the migrator's (`steps.ts`: a table rebuilt is never half written), and may run
 * again (each step is idempotent).
 */
export const leanWrites: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async (pg) => {
      await replace(db, pg);
      if (!pg) await withoutRowid(db);
    });
  },
};

async function replace(db: Kysely<any>, pg: boolean): Promise<void> {
  // The copies as the pages say (before the new triggers, which would move counts for each row rewritten).
  for (const copy of SECRET_PAGE_COPIES) {
    const about = copy.about ? ` and ${copy.about.replace(/\br\./g, `${copy.table}.`)}` : '';
    const value =
      `coalesce((select case when p.privacy = 'secret' then 1 else 0 end from pages p ` +
      `where p.id = ${copy.table}.${copy.pageColumn}${about}), 0)`;
    await sql.raw(`update ${copy.table} set secret_page = ${value} where secret_page <> ${value}`).execute(db);
  }
  for (const spec of countersFor(pg).filter((s) => COUNTED_BY_COPY.includes(s.list)))
    await replaceCounterTriggers(db, spec, pg);
}

/**
 * Rebuilds `list_counts` WITHOUT ROWID, unless it is already. `legacy_alter_table` for the rename: the triggers
 * that write the counts name `list_counts`, which does not exist between the drop and the rename (a checked
 * rename refuses to go on), and is their name again after it.
 */
async function withoutRowid(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'list_counts'`.execute(db);
  if (/without\s+rowid\s*$/i.test(rows[0]?.sql ?? '')) return;
  await sql`drop table if exists list_counts_rebuilt`.execute(db);
  await sql`create table list_counts_rebuilt (key varchar(400) primary key, n integer not null) without rowid`.execute(db);
  await sql`insert into list_counts_rebuilt (key, n) select key, n from list_counts order by key`.execute(db);
  await sql`drop table list_counts`.execute(db);
  await sql`pragma legacy_alter_table = on`.execute(db);
  try {
    await sql`alter table list_counts_rebuilt rename to list_counts`.execute(db);
  } finally {
    await sql`pragma legacy_alter_table = off`.execute(db);
  }
}
