import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A Member's secret pages (the ones they follow; `secretSeenBy` in `src/store/pages.ts`) are found from an
 * index of secret follows only: a partial index holding a follow of a page only while that page is secret
 * (`secret_page`, migration 0007), by user. Before, the walk read every page the user follows to keep the
 * few secret ones: a Member following 2,000 pages paid about 1 ms for it each time a follow moved the
 * follows table's version. Now it costs the secret pages they are in (a Member in 3: 8 µs instead of
 * 1,000). Both dialects (partial indexes are SQL both speak); a follow of a public page adds no entry. The
 * type and secrecy are columns as well as the index's condition: without statistics, SQLite's planner ranks
 * an index by the equalities it serves, and would otherwise prefer the follows list's
 * `(user_id, followable_type, id, …)`.
 */
export const secretFollows: Migration = {
  async up(db: Kysely<any>) {
    await sql`create index follows_user_secret on follows (user_id, followable_type, secret_page, followable_id) where secret_page = 1 and followable_type = 'Page'`.execute(db);
  },
};
