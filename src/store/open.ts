import type { Store } from './store.js';

/** A `--db` / `AGORA_DB` value that names a PostgreSQL database rather than a SQLite file. */
export const isPostgresTarget = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target.trim());

export interface OpenStoreOptions {
  /** AGORA_SECRET_KEY: seals stored secrets (SQLite: else the key file beside the database). */
  secretKey?: string;
  /** Sees every query the store runs, with its parameters. */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Told the migrations applied on opening. */
  onMigrated?: (applied: string[]) => void;
  /** SQLite: how often, while notifications are watched, another process's are looked for (1,000 ms). */
  notificationPollMs?: number;
}

/** The store a `--db` value names, migrated (a newer schema refused). Each driver is loaded only when used. */
export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresTarget(target)) {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(target.trim(), options);
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(target, options);
}
