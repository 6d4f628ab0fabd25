import { PostgresAdapter, sql, type Kysely } from 'kysely';

/*
 * Frozen with the migrations: what they share of the store's dialect helpers, copied here as they were when the
 * migrations stopped importing live code (issue 29), so that a change to `src/store/dialect.ts` never changes
 * what an old migration does. Never edit: a migration that needs something else gets its own copy.
 */

/** True when a Kysely instance (or a transaction of one, as a migration gets) speaks PostgreSQL. */
export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * A migration's work in one transaction: SQLite runs its migrations outside any (a step half done would stay),
 * so there it is wrapped in its own; PostgreSQL's migrator already holds one. `work` is told the dialect.
 */
export async function inOneTransaction(db: Kysely<any>, work: (pg: boolean) => Promise<void>): Promise<void> {
  if (isPostgres(db)) return work(true);
  await sql`begin immediate`.execute(db);
  try {
    await work(false);
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => undefined);
    throw error;
  }
}
