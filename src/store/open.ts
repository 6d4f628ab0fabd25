import type { OpenStoreOptions, Store } from './store.js';

export type { OpenStoreOptions };

/** A `--db` / `AGORA_DB` value that names a PostgreSQL database rather than a SQLite file. */
export const isPostgresTarget = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target.trim());

/** The store a `--db` value names, migrated (a newer schema refused). Each driver is loaded only when used. */
export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresTarget(target)) {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(target.trim(), options);
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(target, options);
}
