import { Kysely, Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import { apiKeysRepo, idempotencyRepo, permissionSetsRepo } from './access.js';
import { checkCounts, type Drift } from './counters.js';
import { dialectOf } from './dialect.js';
import { followsRepo } from './follows.js';
import { membership } from './migrations/0002-membership.js';
import { foundation } from './migrations/0001-foundation.js';
import { hardening } from './migrations/0004-hardening.js';
import { accessRequestsRepo, invitesRepo } from './membership.js';
import { content } from './migrations/0003-content.js';
import { audit } from './migrations/0006-audit.js';
import { auditLogRepo } from './audit.js';
import { moderationQueueRepo } from './moderation.js';
import { flatCost } from './migrations/0005-flat-cost.js';
import { concurrency } from './migrations/0008-concurrency.js';
import { commentsRepo, likesRepo, statusesRepo } from './content.js';
import { attendancesRepo, eventsRepo } from './events.js';
import { notificationJobsRepo, notificationsRepo } from './notifications.js';
import { deliveriesRepo, webhooksRepo } from './webhooks.js';
import { pageConfigurationsRepo, pagesRepo } from './pages.js';
import type { Database } from './schema.js';
import { SecretBox } from './secret-box.js';
import { usersRepo } from './users.js';

/** Numbered migrations, applied in order at start. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-membership': membership,
  '0003-content': content,
  '0004-hardening': hardening,
  '0006-audit': audit,
  '0005-flat-cost': flatCost,
  '0008-concurrency': concurrency,
};

class StaticMigrations implements MigrationProvider {
  async getMigrations() {
    return MIGRATIONS;
  }
}

/**
 * The store: one repository per resource over one Kysely instance. Every method is asynchronous so that
 * SQLite and PostgreSQL fit the same interface; `transaction` gives a store whose calls share one
 * transaction (a store already inside one runs the callback in it).
 */
export interface Store {
  readonly dialect: Dialect;
  /** The Kysely instance under the repositories, for store-level tools only (`admin copy`); domain code never uses it. */
  readonly db: Kysely<Database>;
  readonly users: ReturnType<typeof usersRepo>;
  readonly pages: ReturnType<typeof pagesRepo>;
  readonly pageConfigurations: ReturnType<typeof pageConfigurationsRepo>;
  readonly follows: ReturnType<typeof followsRepo>;
  readonly permissionSets: ReturnType<typeof permissionSetsRepo>;
  readonly apiKeys: ReturnType<typeof apiKeysRepo>;
  readonly idempotency: ReturnType<typeof idempotencyRepo>;
  readonly accessRequests: ReturnType<typeof accessRequestsRepo>;
  readonly invites: ReturnType<typeof invitesRepo>;
  readonly webhooks: ReturnType<typeof webhooksRepo>;
  readonly deliveries: ReturnType<typeof deliveriesRepo>;
  readonly statuses: ReturnType<typeof statusesRepo>;
  readonly comments: ReturnType<typeof commentsRepo>;
  readonly likes: ReturnType<typeof likesRepo>;
  readonly events: ReturnType<typeof eventsRepo>;
  readonly attendances: ReturnType<typeof attendancesRepo>;
  readonly notifications: ReturnType<typeof notificationsRepo>;
  readonly notificationJobs: ReturnType<typeof notificationJobsRepo>;
  readonly auditLog: ReturnType<typeof auditLogRepo>;
  readonly moderationQueue: ReturnType<typeof moderationQueueRepo>;
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /** Recounts every list and answers where the kept counts drifted (`repair`: writes the recount). */
  checkCounts(repair?: boolean): Promise<Drift[]>;
  /**
   * A value that changes whenever the stored data may have changed (by this process or another), for
   * exact read caches; undefined when the store cannot tell, and then nothing may be cached.
   */
  dataVersion(): string | undefined;
  close(): Promise<void>;
}

export type Dialect = 'sqlite' | 'postgres';

/** PostgreSQL's answer when a transaction lost a race it cannot wait out: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
const TRANSACTION_ATTEMPTS = 5;

export function createKyselyStore(
  db: Kysely<Database>,
  dialect: Store['dialect'],
  options: { inTransaction?: boolean; onClose?: () => Promise<void>; dataVersion?: () => string; secrets?: SecretBox } = {},
): Store {
  const secrets = options.secrets ?? SecretBox.ephemeral();
  const store: Store = {
    dialect,
    db,
    users: usersRepo(db),
    pages: pagesRepo(db),
    pageConfigurations: pageConfigurationsRepo(db),
    follows: followsRepo(db),
    permissionSets: permissionSetsRepo(db, dialect),
    apiKeys: apiKeysRepo(db),
    idempotency: idempotencyRepo(db),
    accessRequests: accessRequestsRepo(db),
    invites: invitesRepo(db),
    webhooks: webhooksRepo(db, secrets),
    deliveries: deliveriesRepo(db, dialect),
    statuses: statusesRepo(db),
    comments: commentsRepo(db),
    likes: likesRepo(db),
    events: eventsRepo(db, dialect),
    attendances: attendancesRepo(db),
    notifications: notificationsRepo(db),
    notificationJobs: notificationJobsRepo(db, dialect),
    auditLog: auditLogRepo(db),
    moderationQueue: moderationQueueRepo(db),
    checkCounts: (repair) => checkCounts(db, dialect, repair),
    dataVersion: () => (options.inTransaction ? undefined : options.dataVersion?.()),
    transaction(fn) {
      if (options.inTransaction) return fn(store);
      if (dialect === 'postgres') return retried(() => db.transaction().execute((trx) => fn(createKyselyStore(trx, dialect, { inTransaction: true, secrets }))));
      // SQLite: take the write lock up front. A deferred BEGIN that reads and then writes fails with
      // SQLITE_BUSY when another process (a second `agora serve` on the same file) wrote in between.
      return db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const result = await fn(createKyselyStore(conn, dialect, { inTransaction: true, secrets }));
          await sql`commit`.execute(conn);
          return result;
        } catch (error) {
          await sql`rollback`.execute(conn);
          throw error;
        }
      });
    },
    async close() {
      await db.destroy();
      await options.onClose?.();
    },
  };
  return store;
}

/**
 * Runs a PostgreSQL transaction again when it ended in a deadlock or a serialization failure (rows locked in
 * another order by a concurrent transaction): it was rolled back whole, and the callbacks only touch the
 * store, so running them again is safe. SQLite takes its write lock up front and never needs this.
 */
async function retried<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: string } | null)?.code;
      if (attempt >= TRANSACTION_ATTEMPTS || !code || !RETRYABLE.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

/** The schema versions this build knows, oldest first; the last is the newest. */
export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(MIGRATIONS).sort();
export const SCHEMA_VERSION = KNOWN_MIGRATIONS[KNOWN_MIGRATIONS.length - 1]!;

/** A store whose schema was written by a newer agora: this one must not run on it. */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/** PostgreSQL's current schema (undefined for SQLite). */
async function schemaOf(db: Kysely<Database>): Promise<string | undefined> {
  if (dialectOf(db) !== 'postgres') return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('no schema to create the tables in: the search_path names no schema that exists');
  return schema;
}

/** The migrations a database has applied ([] when it has none: a new, empty database). */
async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return rows.rows.map((r) => r.name);
  } catch (error) {
    const e = error as { code?: string; message?: string };
    // SQLite: "no such table"; PostgreSQL: undefined_table.
    if (e.code === '42P01' || /no such table/.test(e.message ?? '')) return [];
    throw error;
  }
}

/**
 * Applies the migrations the database lacks (all of them on an empty one) and answers their names. A
 * database holding a migration this build does not know was moved on by a newer agora: refused, naming both
 * versions, before anything is changed.
 */
export async function migrateToLatest(db: Kysely<Database>, migrationDb: Kysely<any> = db): Promise<string[]> {
  const applied = await appliedMigrations(db);
  const unknown = applied.filter((name) => !(name in MIGRATIONS)).sort();
  if (unknown.length)
    throw new SchemaTooNewError(
      `the database's schema is at version ${unknown[unknown.length - 1]}, newer than this agora knows (${SCHEMA_VERSION}): ` +
        'run the newer agora that upgraded it',
    );
  // Up to date (every start but the first): nothing to ask Kysely's migrator, which reads the catalog of every
  // schema of the database to find its own tables.
  if (KNOWN_MIGRATIONS.every((name) => applied.includes(name))) return [];
  // Numbered migrations were written side by side (0004, 0005, 0006 landed together): a store that has a
  // later one may still lack an earlier one, which is then applied; none depends on another's order.
  const migrator = new Migrator({
    db: migrationDb,
    provider: new StaticMigrations(),
    allowUnorderedMigrations: true,
    // PostgreSQL: the migration tables of the schema the store lives in (the first of its search_path). Left
    // unnamed, Kysely would take another schema's tables in the same database for this one's.
    migrationTableSchema: await schemaOf(db),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
