import { PostgresAdapter, type Kysely } from 'kysely';

/*
 * Frozen with the migrations: what they share of the store's dialect helpers, copied here as they were when the
 * migrations stopped importing live code (issue 29), so that a change to `src/store/dialect.ts` never changes
 * what an old migration does. Never edit: a migration that needs something else gets its own copy.
 */

/** True when a Kysely instance (or a transaction of one, as a migration gets) speaks PostgreSQL. */
export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * A migration's work in one transaction: the migrator's, on both engines (`migrate` in `src/store/store.ts`; SQLite
 * ran its migrations outside any until it, and this opened one of its own, which would now be a nested `begin`).
 * `work` is told the dialect.
 */
export async function inOneTransaction(db: Kysely<any>, work: (pg: boolean) => Promise<void>): Promise<void> {
  return work(isPostgres(db));
}
