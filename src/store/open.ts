import { existsSync } from 'node:fs';
import type { OpenStoreOptions, Store } from './store.js';

/** A `--db` / `AGORA_DB` value that names a PostgreSQL database rather than a SQLite file. */
export const isPostgresTarget = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target.trim());

/**
 * A value shaped like an address but no `postgres://` URL (`postgress://…`, `postgresql:/…`, `postgres:agora@db/…`,
 * `db.internal:5432/agora`), naming no file: a mistyped URL, never the path of a SQLite file to create.
 */
const mistypedAddress = (target: string): boolean =>
  /^([a-z][a-z0-9+.-]*:\/|postgres[a-z]*:)/i.test(target.trim()) || /^[^/:]+:\d+(\/|$)/.test(target.trim());

/** The store a `--db` value names, migrated (a newer schema refused). Each driver is loaded only when used. */
export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresTarget(target)) {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(target.trim(), options);
  }
  if (mistypedAddress(target) && !existsSync(target))
    throw new Error(
      `"${target.trim().split(/[:/@]/)[0]}:…" names no store: a PostgreSQL database is a URL beginning postgres:// or ` +
        'postgresql://, a SQLite file a path',
    );
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(target, options);
}
