import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { schemaDump } from '../helpers/migrations.js';
import { removeDir } from '../helpers/server.js';
import { ACCESS_TRIGGER_SUFFIX } from '../../src/store/migrations/0011-access-notify.js';
import { NOTIFY_TRIGGER } from '../../src/store/migrations/0044-notify-at-insert.js';
import { KNOWN_MIGRATIONS } from '../../src/store/store.js';
import { onPostgres, openRaw, storeTargetFor, TEST_SECRET_KEY, withClient } from '../helpers/store-target.js';

/**
 * The numbered migrations give PostgreSQL the schema they give SQLite: the same tables and columns (nullable
 * alike), the same indexes on the same columns (unique and partial alike) and the same triggers; text columns
 * compare bytes ("C") and integers are 64-bit. Runs with AGORA_TEST_DB, against a fresh SQLite file.
 */
const dir = mkdtempSync(join(tmpdir(), 'agora-parity-'));
afterAll(() => removeDir(dir));

/** A PostgreSQL store in a schema of its own: migrated from empty by the store, or made from the run's template. */
async function postgresStore(name: string, options: { empty?: boolean }): Promise<string> {
  const target = await storeTargetFor(mkdtempSync(join(dir, `${name}-`)), options);
  await (await openStore(target, { secretKey: TEST_SECRET_KEY })).close();
  return target;
}

interface Schema {
  columns: string[];
  indexes: string[];
  triggers: string[];
}

async function sqliteSchema(): Promise<Schema> {
  const file = join(dir, 'agora.db');
  await (await openSqliteStore(file)).close();
  const raw = await openRaw(file, { readonly: true });
  const schema: Schema = { columns: [], indexes: [], triggers: [] };
  // Not compared: the per-table versions (migration 0010), SQLite's alone (PostgreSQL remembers nothing between
  // requests, so keeps no versions; a row every writer of a table updates would also serialise its writers).
  const tables = await raw.all<{ name: string }>(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' and name <> 'table_versions'",
  );
  for (const { name } of tables) {
    for (const c of await raw.all<{ name: string; notnull: number; pk: number }>(`pragma table_info("${name}")`))
      // A primary key is never null in PostgreSQL; SQLite's ids are always given.
      schema.columns.push(`${name}.${c.name}${c.notnull || c.pk ? ' not null' : ''}`);
    for (const i of await raw.all<{ name: string; unique: number; partial: number; origin: string }>(`pragma index_list("${name}")`)) {
      if (i.origin === 'pk') continue;
      const columns = (await raw.all<{ name: string | null; key: number }>(`pragma index_xinfo("${i.name}")`)).filter((c) => c.key);
      schema.indexes.push(`${name}.${i.name}(${columns.map((c) => c.name ?? 'expression').join(', ')})${i.unique ? ' unique' : ''}${i.partial ? ' partial' : ''}`);
    }
  }
  schema.triggers = (await raw.all<{ name: string }>("select name from sqlite_master where type = 'trigger' and name not like '%\\_version\\_%' escape '\\'")).map(
    (r) => r.name,
  );
  await raw.close();
  return schema;
}

async function postgresSchema(target: string): Promise<Schema> {
  const raw = await openRaw(target);
  const schema: Schema = { columns: [], indexes: [], triggers: [] };
  const columns = await raw.all<{ t: string; n: string; nullable: string; type: string; collation: string | null }>(
    `select table_name as t, column_name as n, is_nullable as nullable, data_type as type, collation_name as collation
     from information_schema.columns where table_schema = current_schema() and table_name not like 'kysely_%'`,
  );
  for (const c of columns) {
    schema.columns.push(`${c.t}.${c.n}${c.nullable === 'NO' ? ' not null' : ''}`);
    expect([`${c.type} ${c.collation ?? ''}`.trim()], `${c.t}.${c.n}`).toContain(c.type === 'text' ? 'text C' : 'bigint');
  }
  const indexes = await raw.all<{ tbl: string; idx: string; unique: boolean; partial: boolean; columns: string }>(
    `select t.relname as tbl, i.relname as idx, ix.indisunique as unique, ix.indpred is not null as partial,
       (select string_agg(coalesce(a.attname, 'expression'), ', ' order by k.i)
          from unnest(ix.indkey) with ordinality k(attnum, i) left join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) as columns
     from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_class t on t.oid = ix.indrelid
     where t.relnamespace = current_schema()::regnamespace and not ix.indisprimary and t.relname not like 'kysely_%'`,
  );
  schema.indexes = indexes.map((i) => `${i.tbl}.${i.idx}(${i.columns})${i.unique ? ' unique' : ''}${i.partial ? ' partial' : ''}`);
  schema.triggers = (
    await raw.all<{ name: string }>(
      `select tgname as name from pg_trigger g join pg_class c on c.oid = g.tgrelid
       where c.relnamespace = current_schema()::regnamespace and not g.tgisinternal`,
    )
  ).map((r) => r.name);
  // PostgreSQL's own: NOTIFY the listening processes of key, user and role changes (migration 0011), and of new
  // notifications (0044).
  const notifying = schema.triggers.filter((name) => name.endsWith(ACCESS_TRIGGER_SUFFIX) || name === NOTIFY_TRIGGER);
  expect(notifying.sort()).toEqual([
    'api_keys_delete_notify_access',
    'api_keys_update_notify_access',
    NOTIFY_TRIGGER,
    'permission_sets_change_notify_access',
    'users_change_notify_access',
  ]);
  schema.triggers = schema.triggers.filter((name) => !notifying.includes(name));
  await raw.close();
  return schema;
}

describe('the schema', () => {
  it.skipIf(!onPostgres)('is the same on PostgreSQL as on SQLite: columns, indexes, triggers [runs with AGORA_TEST_DB]', async () => {
    const [sqlite, postgres] = await Promise.all([sqliteSchema(), postgresStore('migrated', { empty: true }).then(postgresSchema)]);
    const sorted = (s: Schema) => ({ columns: [...s.columns].sort(), indexes: [...s.indexes].sort(), triggers: [...s.triggers].sort() });
    expect(sorted(postgres)).toEqual(sorted(sqlite));
    expect(sqlite.indexes.length).toBeGreaterThan(60);
    expect(sqlite.triggers.length).toBeGreaterThan(30);
  });

  it.skipIf(!onPostgres)("made from the run's template (the tests' stores) is the one the migrations make [runs with AGORA_TEST_DB]", async () => {
    const [migrated, copied] = await Promise.all([postgresStore('migrated', { empty: true }), postgresStore('template', {})]);
    const [a, b] = await Promise.all([schemaDump(migrated), schemaDump(copied)]);
    expect(b).toEqual(a);
    expect(a.functions!.length).toBeGreaterThan(10);
    expect(a.triggers!.length).toBeGreaterThan(30);
    expect(a.roles).toHaveLength(3);
  });

  it.skipIf(!onPostgres)(
    'migrates stores of one database at once, one of them opened twice at once, while another schema is dropped [runs with AGORA_TEST_DB]',
    async () => {
      // Four empty schemas, the first opened twice at once (as two servers starting together), while a schema
      // with a users table is made and dropped beside them again and again: each migration reads its own
      // schema alone, under one lock, so none of them fails on another's DDL.
      const targets = await Promise.all([1, 2, 3, 4].map((n) => storeTargetFor(mkdtempSync(join(dir, `together-${n}-`)), { empty: true })));
      let churning = true;
      const churn = (async () => {
        let n = 0;
        while (churning)
          await withClient(async (client) => {
            const name = `t_churn_${process.pid}_${n++}`;
            await client.query(`create schema ${name}; create table ${name}.users (id text primary key, nickname_key text)`);
            await client.query(`alter table ${name}.users drop column nickname_key; drop schema ${name} cascade`);
          });
        return n;
      })();
      const opened = await Promise.allSettled([targets[0]!, ...targets].map((target) => openStore(target, { secretKey: TEST_SECRET_KEY })));
      churning = false;
      expect(await churn).toBeGreaterThan(0);
      for (const result of opened) if (result.status === 'fulfilled') await result.value.close();
      expect(opened.map((r) => (r.status === 'rejected' ? String(r.reason) : 'opened'))).toEqual(Array(5).fill('opened'));
      for (const target of targets) {
        const raw = await openRaw(target);
        const names = (await raw.all<{ name: string }>('select name from kysely_migration order by name')).map((r) => r.name);
        await raw.close();
        expect(names).toEqual([...KNOWN_MIGRATIONS]);
      }
    },
  );

  it.skipIf(!onPostgres)('names a migration that fails, applies none of them, and lets the next try take the lock [runs with AGORA_TEST_DB]', async () => {
    const target = await storeTargetFor(mkdtempSync(join(dir, 'failing-')), { empty: true });
    // A table in the way of the first migration.
    const raw = await openRaw(target);
    await raw.exec('create table permission_sets (id integer)');
    await expect(openStore(target, { secretKey: TEST_SECRET_KEY })).rejects.toThrow(/database migration 0001-foundation failed: .*permission_sets/);
    expect(await raw.all("select table_name from information_schema.tables where table_schema = current_schema() and table_name = 'users'")).toEqual([]);
    await raw.exec('drop table permission_sets');
    await raw.close();
    // Had the lock been kept, this would wait for it.
    await (await openStore(target, { secretKey: TEST_SECRET_KEY })).close();
  });
});
