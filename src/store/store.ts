import { Kysely, sql } from 'kysely';
import { apiKeysRepo, idempotencyRepo, permissionSetsRepo } from './access.js';
import { checkCounts, type Drift } from './counters.js';
import { dialectOf, inOwnTransaction, type Dialect } from './dialect.js';
import { GroupCommit } from './group-commit.js';
import { retried } from './retried.js';
import { followsRepo } from './follows.js';
import { accessRequestsRepo, invitesRepo } from './membership.js';
import { auditLogRepo } from './audit.js';
import { moderationQueueRepo } from './moderation.js';
import { ACCESS_TABLES } from './migrations/0011-access-notify.js';
import { MIGRATIONS } from './migrations/index.js';
import { removalsRepo } from './removals.js';
import { suspensionsRepo } from './suspensions.js';
import { reportsRepo } from './reports.js';
import { commentsRepo, likesRepo, statusesRepo } from './content.js';
import { attendancesRepo, eventsRepo } from './events.js';
import { notificationJobsRepo, notificationsRepo } from './notifications.js';
import { NotificationWatch, type NotifiedListener, type OtherProcessesWatch } from './notification-watch.js';
import { deliveriesRepo, webhooksRepo } from './webhooks.js';
import { pageConfigurationsRepo, pagesRepo } from './pages.js';
import type { AnyDb } from './paging.js';
import type { Database } from './schema.js';
import { SecretBox } from './secret-box.js';
import { usersRepo } from './users.js';

/** One repository per resource, over one Kysely instance (a transaction's, inside one). */
function repositories(db: Kysely<Database>, dialect: Dialect, secrets: SecretBox, notifications: Parameters<typeof notificationsRepo>[1]) {
  return {
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
    notifications: notificationsRepo(db, notifications),
    notificationJobs: notificationJobsRepo(db, dialect),
    auditLog: auditLogRepo(db),
    moderationQueue: moderationQueueRepo(db),
    removals: removalsRepo(db),
    suspensions: suspensionsRepo(db),
    reports: reportsRepo(db),
  };
}

/**
 * The store's repositories, all asynchronous so both engines fit one interface; `transaction` gives a store sharing one
 * transaction (inside one already, it runs the callback in it).
 */
export interface Store extends Readonly<ReturnType<typeof repositories>> {
  readonly dialect: Dialect;
  /** The Kysely instance under the repositories, for store-level tools only (`admin copy`), never the domain. */
  readonly db: Kysely<Database>;
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /**
   * In a transaction: writers of one kind take turns until it ends (PostgreSQL, an advisory lock; SQLite's one writer
   * does already): `role names`, compared beyond what an index holds; `moderation` (domain/README.md).
   */
  takeTurns(kind: 'role names' | 'moderation'): Promise<void>;
  /** Recounts every list and answers where kept counts drifted (`repair` writes the recount; `onDrift` sees each). */
  checkCounts(repair?: boolean, onDrift?: (drift: Drift) => void | Promise<void>): Promise<Drift[]>;
  /**
   * Changes whenever the data may have (any process), for exact read caches; undefined: cache nothing. Kept for the
   * rest of an event-loop turn; `fresh` looks again (as each request arrives).
   */
  dataVersion(fresh?: boolean): string | undefined;
  /** `dataVersion` moved only by writes to these tables (PostgreSQL: keys, users and roles only, `pg-listener.ts`). */
  versionOf(tables: readonly string[]): string | undefined;
  /** Tells `listener` who got new notifications, at commit or from other processes ("anyone may have" if unknown). */
  watchNotifications(listener: NotifiedListener): () => void;
  close(): Promise<void>;
}

export function createKyselyStore(
  db: Kysely<Database>,
  dialect: Store['dialect'],
  options: {
    inTransaction?: boolean;
    /** Closes what the engine opened beside Kysely (SQLite's read-only connection, PostgreSQL's listener). */
    beforeClose?: () => Promise<void>;
    dataVersion?: (fresh?: boolean) => string;
    /** Per-table versions (SQLite), for caches that a write to another table does not retire. */
    versions?: { of(tables: readonly string[]): string | undefined };
    /** Told after each group of transactions committed. */
    committed?: () => void;
    /** SQLite: runs begin, savepoint, commit… straight on the driver, without building a query for each. */
    control?: (statement: string) => void;
    /** PostgreSQL: the version of API keys, users and roles, moved by LISTEN/NOTIFY (undefined while not listening). */
    accessVersion?: () => string | undefined;
    secrets?: SecretBox;
    /** What tells of other processes' notifications (none: this process alone writes). */
    otherProcesses?: OtherProcessesWatch;
    /** A transaction's store: the watchers of the store it belongs to, and where its notified users are collected. */
    watch?: NotificationWatch;
    notified?: (userIds: readonly string[]) => void;
  } = {},
): Store {
  const secrets = options.secrets ?? SecretBox.ephemeral();
  const watch = options.watch ?? new NotificationWatch(options.otherProcesses);
  // Outside a transaction each statement commits by itself: its users are told at once.
  const notified = options.inTransaction ? options.notified : (userIds: readonly string[]) => watch.emit(userIds);
  // Versions are known only outside transactions (a transaction's store is given none).
  const { dataVersion, accessVersion } = options;
  const versions = options.versions ?? (dataVersion && { of: () => dataVersion() });
  let commits: GroupCommit | undefined;
  const store: Store = {
    dialect,
    db,
    ...repositories(db, dialect, secrets, notified),
    checkCounts: (repair, onDrift) => checkCounts(db, dialect, repair, onDrift),
    dataVersion: (fresh) => dataVersion?.(fresh),
    versionOf: (tables) => {
      if (versions) return versions.of(tables);
      return accessVersion && tables.every((table) => ACCESS_TABLES.has(table)) ? accessVersion() : undefined;
    },
    watchNotifications: (listener) => watch.watch(listener),
    async takeTurns(kind) {
      // Per schema: stores in other schemas of the database do not wait for this one.
      if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ${`.agora.${kind}`}))`.execute(db);
    },
    async transaction(fn) {
      if (options.inTransaction) return fn(store);
      // Those it notified are told once it committed; an attempt rolled back (retried, failed) tells nobody.
      let told: string[] = [];
      const inOne = (trx: Kysely<Database>) => {
        const mine: string[] = (told = []);
        return fn(createKyselyStore(trx, dialect, { inTransaction: true, secrets, watch, notified: (ids) => mine.push(...ids) }));
      };
      // SQLite: one connection, transactions committed in groups (sqlite.ts, which makes every SQLite store, gives
      // the driver's control statements).
      const value =
        dialect === 'postgres'
          ? await retried(() => db.transaction().execute(inOne))
          : await (commits ??= new GroupCommit(db, options.control!, options.committed)).run(inOne);
      watch.emit(told);
      return value;
    },
    async close() {
      if (!options.inTransaction) watch.close();
      await options.beforeClose?.();
      await db.destroy();
    },
  };
  return store;
}

/** How a store is opened (`openStore`, and each engine's). */
export interface OpenStoreOptions {
  /** AGORA_SECRET_KEY: seals stored secrets (SQLite: else the key file `<db>.key`; PostgreSQL: required to serve). */
  secretKey?: string;
  /** Sees every query the store runs, with its parameters. */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Told the migrations applied on opening (none when the schema was current). */
  onMigrated?: (applied: string[]) => void;
  /** SQLite: how often, while notifications are watched, another process's are looked for (1,000 ms). */
  notificationPollMs?: number;
}

/** The schema versions this build knows, oldest first; the last is the newest. */
export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(MIGRATIONS).sort();
export const SCHEMA_VERSION = KNOWN_MIGRATIONS[KNOWN_MIGRATIONS.length - 1]!;

/** A store whose schema was written by a newer agora: this one must not run on it. */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/** PostgreSQL's current schema (SQLite's is `main`). */
async function schemaOf(db: Kysely<Database>): Promise<string> {
  if (dialectOf(db) !== 'postgres') return 'main';
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('no schema to create the tables in: the search_path names no schema that exists');
  return schema;
}

/** The migrations a database applied, in the order Kysely's migrator reads them; [] for a new, empty one. */
async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  try {
    const rows = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration`.execute(db);
    return inAppliedOrder(rows.rows);
  } catch (error) {
    const e = error as { code?: string; message?: string };
    // PostgreSQL's undefined_table; SQLite's "no such table".
    if (e.code === '42P01' || /no such table/.test(e.message ?? '')) return [];
    throw error;
  }
}

/** Refuses a database that holds a migration this build does not know: a newer agora moved it on. */
function refuseNewerSchema(applied: Iterable<string>): void {
  const unknown = [...applied].filter((name) => !(name in MIGRATIONS)).sort();
  if (unknown.length)
    throw new SchemaTooNewError(
      `the database's schema is at version ${unknown[unknown.length - 1]}, newer than this agora knows (${SCHEMA_VERSION}): ` +
        'run the newer agora that upgraded it',
    );
}

const inAppliedOrder = (rows: { name: string; timestamp: string }[]): string[] =>
  rows
    .sort((a, b) => new Date(a.timestamp).getTime() - new Date(b.timestamp).getTime() || a.name.localeCompare(b.name))
    .map((r) => r.name);

/** Refuses migrations applied out of name order: each runs on the schema of those before it, and no other. */
function refuseUnordered(applied: readonly string[]): void {
  const at = applied.findIndex((name, i) => name !== KNOWN_MIGRATIONS[i]);
  if (at >= 0)
    throw new Error(
      `the database applied migration ${applied[at]} where ${KNOWN_MIGRATIONS[at]} comes first: migrations apply in name order ` +
        'only, and this database was migrated out of it',
    );
}

/** Applies the migrations the database lacks and answers their names; refuses, before any change, a newer schema. */
export async function migrateToLatest(db: Kysely<Database>, migrationDb: AnyDb = db): Promise<string[]> {
  const applied = await appliedMigrations(db);
  refuseNewerSchema(applied);
  if (KNOWN_MIGRATIONS.every((name) => applied.includes(name))) return [];
  return migrate(migrationDb, await schemaOf(db), dialectOf(db) === 'postgres');
}

/** The advisory lock Kysely's migrator takes on PostgreSQL: an agora that still migrates with it waits for ours. */
const MIGRATION_LOCK = '3853314791062309107';

/**
 * The migrations, not by Kysely's `Migrator`, which on PostgreSQL reads every schema's catalog before taking its lock
 * and can fail on another schema's DDL. All of them and their `kysely_migration` rows in one transaction, which holds
 * the write lock before reading what is applied: another process opening the store waits (PostgreSQL: the same
 * advisory lock as Kysely's; SQLite: `begin immediate`, under busy_timeout), then finds them applied, and a crash
 * leaves none half done or unrecorded (SQLite's DDL is transactional). No migration runs a statement SQLite refuses
 * or ignores in a transaction (`pragma foreign_keys`, `journal_mode`, `vacuum`; 0012's `legacy_alter_table` works in
 * one): `sqlite.ts` sets those before migrating.
 */
async function migrate(migrationDb: AnyDb, schema: string, pg: boolean): Promise<string[]> {
  const table = (name: string) => sql.id(schema, name);
  return migrationDb.connection().execute(async (connection) => {
    if (pg) await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK)}::bigint)`.execute(connection);
    try {
      const inTransaction = <T>(run: (trx: AnyDb) => Promise<T>): Promise<T> =>
        // Kysely's SQLite transaction would `begin` deferred, taking the write lock only at the first write.
        pg ? connection.transaction().execute(run) : inOwnTransaction(connection, 'begin immediate', () => run(connection));
      return await inTransaction(async (trx) => {
        const tables = trx.schema.withSchema(schema);
        await tables
          .createTable('kysely_migration')
          .ifNotExists()
          .addColumn('name', 'varchar(255)', (col) => col.notNull().primaryKey())
          .addColumn('timestamp', 'varchar(255)', (col) => col.notNull())
          .execute();
        await tables
          .createTable('kysely_migration_lock')
          .ifNotExists()
          .addColumn('id', 'varchar(255)', (col) => col.notNull().primaryKey())
          .addColumn('is_locked', 'integer', (col) => col.notNull().defaultTo(0))
          .execute();
        await sql`insert into ${table('kysely_migration_lock')} (id, is_locked) values ('migration_lock', 0) on conflict do nothing`.execute(trx);
        const applied = inAppliedOrder((await sql<{ name: string; timestamp: string }>`select name, timestamp from ${table('kysely_migration')}`.execute(trx)).rows);
        // A newer agora may have migrated the database while this one waited for the lock.
        refuseNewerSchema(applied);
        refuseUnordered(applied);
        const done = new Set(applied);
        const newlyApplied: string[] = [];
        for (const name of KNOWN_MIGRATIONS) {
          if (done.has(name)) continue;
          try {
            await MIGRATIONS[name]!.up(trx);
          } catch (error) {
            throw new Error(`database migration ${name} failed: ${String((error as Error)?.message ?? error)}`, { cause: error });
          }
          await sql`insert into ${table('kysely_migration')} (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(trx);
          newlyApplied.push(name);
        }
        return newlyApplied;
      });
    } finally {
      // A dead connection let the lock go already: the migration's own error is the one to tell.
      if (pg) await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK)}::bigint)`.execute(connection).catch(() => undefined);
    }
  });
}
