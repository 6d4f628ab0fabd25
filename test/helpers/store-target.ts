import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Which store the tests run on. `AGORA_TEST_DB=postgres://127.0.0.1:5432/<db>` runs every app
 * (test/helpers/app.ts) and every real server (test/helpers/server.ts) on PostgreSQL, each in a fresh schema
 * of its own in that database (a schema and its migrations cost a fraction of a CREATE DATABASE); unset, on
 * a SQLite file in the test's temp folder.
 */
export const PG_TEST_DB = process.env.AGORA_TEST_DB?.trim() || undefined;
export const onPostgres = PG_TEST_DB !== undefined;

/** PostgreSQL stores need AGORA_SECRET_KEY (there is no key file beside a database): the tests' one. */
export const TEST_SECRET_KEY = 'agora tests: not a secret, 32 chars';

/**
 * The answer to `ask` once another process's change to a key, user or role applies here: on SQLite from the next
 * request (its data version), on PostgreSQL once the change's NOTIFY has reached this process (docs/operations.md:
 * p99 4 ms, at most the listener's 2 s), so there a request that raced it is asked again until `applied` or 2 s.
 */
export async function afterAccessChange<T>(ask: () => Promise<T>, applied: (answer: T) => boolean): Promise<T> {
  const deadline = Date.now() + (onPostgres ? 2_000 : 0);
  let answer = await ask();
  while (!applied(answer) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    answer = await ask();
  }
  return answer;
}

/** Skip a SQLite-only test on PostgreSQL (the reason goes into the test's name). */
export const sqliteOnly = (reason: string) => (onPostgres ? ` [skipped on PostgreSQL: ${reason}]` : '');

const TARGET_FILE = 'agora-test-db.url';

declare module 'vitest' {
  interface ProvidedContext {
    /** The run's migrated schema as one script (makeSchemaTemplate), from test/helpers/pg-global.ts. */
    agoraSchemaTemplate: SchemaTemplate | null;
  }
}

/**
 * A migrated schema as SQL: every statement the migrations ran on an empty schema (`schema`), in order, with
 * their parameters written in. Played back in one round trip on another empty schema (the name replaced), it
 * gives the schema the migrations would have, at a fraction of their cost (about 270 statements, each its own
 * round trip and catalog lookups when migrating). test/api/schema-parity.test.ts checks the two are the same.
 */
export interface SchemaTemplate {
  schema: string;
  script: string;
}

const literal = (value: unknown): string => {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return `'${String(value).replace(/'/g, "''")}'`;
};

/**
 * Migrates a new schema of the test database through the store (the real migrations) and records what they
 * wrote. The reads (the migrator's own lock and catalog queries, the migrations' checks of existing rows) are
 * left out: played back on an empty schema they would read what they read here.
 */
export async function makeSchemaTemplate(): Promise<SchemaTemplate> {
  const schema = `t_template_${randomBytes(6).toString('hex')}`;
  await withClient((client) => client.query(`create schema ${schema}`));
  const statements: string[] = [];
  const { openStore } = await import('../../src/store/open.js');
  const store = await openStore(targetIn(schema), {
    secretKey: TEST_SECRET_KEY,
    onQuery: (sql, parameters) => {
      // (Nor the migrations' own transaction: played back, the script runs inside the helper's.)
      if (/^\s*(select|with|begin|commit|rollback|savepoint|release)\b/i.test(sql)) return;
      // Kysely numbers its parameters $1, $2…; statements with parameters are built by it (no $ in their text).
      statements.push(parameters.length ? sql.replace(/\$(\d+)/g, (_, n) => literal(parameters[Number(n) - 1])) : sql);
    },
  });
  await store.close();
  if (statements.length < 100) throw new Error(`migrating the template schema wrote only ${statements.length} statements`);
  return { schema, script: statements.join(';\n') };
}

const targetIn = (schema: string) =>
  `${PG_TEST_DB}${PG_TEST_DB!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;

let template: SchemaTemplate | null | undefined;
async function schemaTemplate(): Promise<SchemaTemplate | null> {
  if (template === undefined) {
    const { inject } = await import('vitest');
    template = inject('agoraSchemaTemplate') ?? null;
  }
  return template;
}

/**
 * The store of a test folder: `<dir>/agora.db`, or on PostgreSQL a new schema (remembered in the folder, so
 * that a second app or server given the same folder opens the same store), already migrated from the run's
 * template; `empty`: a schema with nothing in it, for the tests of the migrations themselves.
 */
export async function storeTargetFor(dir: string, options: { empty?: boolean } = {}): Promise<string> {
  if (!PG_TEST_DB) return join(dir, 'agora.db');
  const remembered = join(dir, TARGET_FILE);
  if (existsSync(remembered)) return readFileSync(remembered, 'utf8');
  const schema = `t_${randomBytes(8).toString('hex')}`;
  const made = options.empty ? null : await schemaTemplate();
  await withClient((client) =>
    client.query(
      made
        ? `begin; create schema ${schema}; set local search_path to ${schema};\n${made.script.replaceAll(made.schema, schema)};\ncommit`
        : `create schema ${schema}`,
    ),
  );
  const target = targetIn(schema);
  writeFileSync(remembered, target);
  return target;
}

/**
 * The schemas of a run are dropped at its end (test/helpers/pg-global.ts), not test by test: a DROP SCHEMA
 * while another test's store is migrating can fail that migration (Kysely's migrator reads the catalog of every
 * schema of the database).
 */
export async function dropTestSchemas(): Promise<number> {
  if (!PG_TEST_DB) return 0;
  return withClient(async (client) => {
    const { rows } = await client.query<{ name: string }>(`select nspname as name from pg_namespace where nspname like 't\\_%'`);
    for (const { name } of rows) await client.query(`drop schema if exists ${name} cascade`);
    return rows.length;
  });
}

/** Runs SQL on the test database as it is (for tests that look at or tamper with a store's rows). */
export async function withClient<T>(run: (client: pg.Client) => Promise<T>, target = PG_TEST_DB): Promise<T> {
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Plain SQL on a store, whichever it is: `?` placeholders, rows as objects. */
export interface RawDb {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

export async function openRaw(target: string, options: { readonly?: boolean } = {}): Promise<RawDb> {
  if (target.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    return {
      all: async <T>(sql: string, params: unknown[] = []) => (await client.query(numbered(sql), params)).rows as T[],
      exec: async (sql) => void (await client.query(sql)),
      close: () => client.end(),
    };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(target, { readonly: options.readonly ?? false });
  return {
    all: async <T>(sql: string, params: unknown[] = []) => {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params) as T[];
      statement.run(...params);
      return [];
    },
    exec: async (sql) => void db.exec(sql),
    close: async () => void db.close(),
  };
}
