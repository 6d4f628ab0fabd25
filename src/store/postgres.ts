import { createHash, randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { SqliteTypesOnPostgres } from './dialect.js';
import { ORIGIN_SETTING } from './migrations/0044-notify-at-insert.js';
import { AccessListener, watchAccessWrites } from './pg-listener.js';
import type { Database as Schema } from './schema.js';
import { SecretBox } from './secret-box.js';
import { createKyselyStore, migrateToLatest, SchemaTooNewError, type OpenStoreOptions, type Store } from './store.js';

const INT8 = 20;

/**
 * The settings of `url`, plus generic plans (our index walks' plans do not depend on the values, yet PostgreSQL would
 * plan some again every run), no JIT (a costly-looking statement is compiled every run), and a random page read
 * costed near a sequential one: a generic plan guesses that `user_id = $1` keeps 1/n of the rows when the statistics
 * saw n values, and at the default cost (4) it walked the whole primary key filtering rows rather than the list's
 * own index when n was small (three users with notifications: each list then read every newer notification of
 * everyone). docs/performance.md, "What the history taught". The URL's `options`, else PGOPTIONS, come after ours
 * so they may override them.
 */
function withSessionSettings(url: string, origin: string): pg.PoolConfig {
  const config = parseIntoClientConfig(url);
  const own = config.options ?? process.env.PGOPTIONS;
  return { ...config, options: [SESSION_SETTINGS, `-c ${ORIGIN_SETTING}=${origin}`, own].filter(Boolean).join(' ') };
}

const SESSION_SETTINGS = '-c plan_cache_mode=force_generic_plan -c jit=off -c random_page_cost=1.1';

/**
 * Opens the PostgreSQL store at `url` (libpq's parameters, e.g. `?options=-c%20search_path%3Dagora` for a schema of its
 * own) and applies the migrations it lacks. The schema is SQLite's, column for column (`SqliteTypesOnPostgres`).
 */
export async function openPostgresStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const where = describePostgresUrl(url);
  // This store's name in the notifications its inserts announce (migration 0044), so that it skips its own.
  const origin = randomBytes(8).toString('hex');
  const pool = new pg.Pool({
    ...withSessionSettings(url, origin),
    max: 10,
    // Kept while the store is open (pg closes one idle for 10 s): each holds the statements it prepared and planned.
    idleTimeoutMillis: 0,
    // Probed while idle, so one a firewall or NAT dropped fails rather than hangs.
    keepAlive: true,
    connectionTimeoutMillis: 10_000,
    // count(*) and bigint columns come as strings by default: our integers are far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // The pool replaces an idle connection the server closed; without a listener its 'error' would end the process.
  pool.on('error', () => {});
  // First, so that the access watch below sees the statements as Kysely sends them.
  pool.on('connect', (client) => namePreparedStatements(client));
  const listener = new AccessListener({ connectionString: url, connectionTimeoutMillis: 10_000, keepAlive: true });
  // This process's own committed key, user and role changes.
  pool.on('connect', (client) => watchAccessWrites(client, () => listener.changed()));
  const onQuery = options.onQuery;
  const db = new Kysely<Schema>({
    dialect: new PostgresDialect({ pool }),
    log: onQuery ? (event) => onQuery(event.query.sql, event.query.parameters) : undefined,
  });
  try {
    const applied = await migrateToLatest(db, db.withPlugin(new SqliteTypesOnPostgres()));
    options.onMigrated?.(applied);
  } catch (error) {
    await db.destroy().catch(() => {});
    if (error instanceof SchemaTooNewError) throw error;
    // One line naming the server and database; not the error itself, which may carry the password.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`cannot use the PostgreSQL database ${where}: ${reasonOf(error)}`);
  }
  const secrets = options.secretKey
    ? SecretBox.fromString(options.secretKey)
    : SecretBox.unavailable(
        'AGORA_SECRET_KEY is required with a PostgreSQL store: it seals the webhook signing secrets',
      );
  // No data version (another process may write unseen): only keys, users and roles are cached, while the listener
  // vouches for them (`pg-listener.ts`).
  return createKyselyStore(db, 'postgres', {
    secrets,
    accessVersion: () => listener.version(),
    otherProcesses: (emit) => listener.watchNotifications(origin, emit),
    beforeClose: () => listener.close(),
  });
}

/**
 * Statements with more values than this go unnamed. Their text grows with what they are given (a stream's sources, the
 * rows of a batch insert), so named, each connection would keep one prepared statement per length, without end. The
 * lists, whose text is fixed by their filters, take fewer (33 at most in the suite).
 */
const MAX_NAMED_VALUES = 40;

/**
 * Sends each single statement as a prepared statement named by its text's hash, so it is planned once per connection.
 * A text holding `;` (several statements, a function's body) cannot be prepared: it goes as it is.
 */
function namePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const unnamed = typeof text !== 'string' || text.includes(';') || !Array.isArray(values) || values.length > MAX_NAMED_VALUES;
    if (unnamed) return query(...args);
    // Hashed each time, as cheap as looking a text built afresh up in a cache.
    return query({ name: `a${createHash('sha1').update(text).digest('base64url')}`, text, values });
  };
}

/** `database "agora" on 127.0.0.1:5432 as user "root"`: what a person needs to find it, without the password. */
function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    const port = parsed.port || parsed.searchParams.get('port') || '5432';
    const user =
      decodeURIComponent(parsed.username) || parsed.searchParams.get('user') || process.env.PGUSER || process.env.USER || '';
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
    return `"${database}" on ${host}:${port}${user ? ` as user "${user}"` : ''}`;
  } catch {
    return '(an unreadable postgres:// URL)';
  }
}

/** The cause in a few words: the driver's message, or what its network error code means. */
function reasonOf(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: { code?: string; message?: string }[] };
  // Node reports a host with several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError, with no message.
  const first = e?.errors?.[0] ?? e;
  const code = first?.code ?? e?.code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'the connection was refused (is PostgreSQL running and listening there?)',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'the host name could not be resolved',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'the host cannot be reached',
  };
  if (code && known[code]) return known[code]!;
  const message = (first?.message || e?.message || String(error)).split('\n')[0]!;
  // invalid_catalog_name: PostgreSQL's own words, and the next step.
  if (code === '3D000') return `${message}: create it first (createdb, or CREATE DATABASE)`;
  if (/timeout/i.test(message)) return 'the connection timed out';
  return message;
}
