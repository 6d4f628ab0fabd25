import { sql, type Kysely } from 'kysely';
import { COUNTING_TRIGGERS_PG, rewriteCountsPg } from './counters.js';
import { NOTIFY_TRIGGER } from './migrations/0044-notify-at-insert.js';
import { ROWS_PER_STATEMENT } from './rows.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

const OTHER_KEYS: Partial<Record<keyof Database, readonly string[]>> = { idempotency_keys: ['user_id', 'idempotency_key'], notification_counters: ['user_id'], suspensions: ['user_id'] };
/**
 * Every table, parents before children (foreign keys), with the primary key it is read by (`id` but for a few). Not
 * `list_counts`: the destination keeps its own, and a recount must agree at the end.
 */
export const COPIED_TABLES: readonly { table: keyof Database; key: readonly string[] }[] = (
  ['permission_sets', 'users', 'api_keys', 'page_configurations', 'pages', 'follows', 'idempotency_keys', 'page_access_requests', 'invites',
    'webhooks', 'webhook_deliveries', 'events', 'event_attendances', 'statuses', 'comments', 'likes', 'notification_contents', 'notifications',
    'notification_counters', 'notification_jobs', 'audit_log', 'moderation_queue', 'removed_content', 'suspensions', 'reports'] as const
).map((table) => ({ table, key: OTHER_KEYS[table] ?? ['id'] }));

export interface CopyProgress {
  table: string;
  /** Rows copied so far, all tables together. */
  copied: number;
  total: number;
}

interface CopyReport {
  /** Each table's rows in the source's snapshot and in the copy (the same). */
  tables: { table: string; source: number; destination: number }[];
  rows: number;
  /** Tables the source has more or fewer rows in by the end (written to meanwhile; edits unseen): not in the copy. */
  changedSince: { table: string; snapshot: number; now: number }[];
}

const countOf = async (db: Kysely<Database>, table: string): Promise<number> =>
  Number((await db.selectFrom(table as keyof Database).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);

/**
 * Copies a whole store, rows as they are, into an empty one (either engine), webhook secrets sealed again with the
 * destination's key. The source is read in one snapshot (a server may be writing: what it writes after is not
 * copied); the destination written in one transaction, its tables counted against the snapshot's before it commits,
 * so a failed copy leaves it empty. Then the destination's kept totals are recounted.
 */
export async function copyStore(from: Store, to: Store, onProgress?: (progress: CopyProgress) => void | Promise<void>): Promise<CopyReport> {
  await requireEmpty(to.db);
  const snapshot = from.dialect === 'postgres' ? from.db.transaction().setIsolationLevel('repeatable read') : from.db.transaction();
  const tables: CopyReport['tables'] = [];
  await snapshot.execute(async (source) => {
    const totals = new Map<string, number>();
    for (const { table } of COPIED_TABLES) totals.set(table, await countOf(source, table));
    const total = [...totals.values()].reduce((a, b) => a + b, 0);
    let copied = 0;
    await to.db.transaction().execute(async (destination) => {
      // The default roles that migrations wrote make way for the source's own.
      await destination.deleteFrom('permission_sets').execute();
      const setAside = to.dialect === 'postgres' ? await setCountingTriggersAside(destination) : [];
      for (const { table, key } of COPIED_TABLES) {
        await onProgress?.({ table, copied, total });
        let after: unknown[] | undefined;
        for (;;) {
          const rows = await readBatch(source, table, key, after);
          if (rows.length === 0) break;
          const values = table === 'webhooks' ? rows.map((r) => ({ ...r, secret: to.webhooks.secrets.seal(from.webhooks.secrets.open(String(r.secret))) })) : rows;
          await destination.insertInto(table).values(values as never).execute();
          copied += rows.length;
          await onProgress?.({ table, copied, total });
          const last = rows[rows.length - 1]!;
          after = key.map((k) => last[k]);
          if (rows.length < ROWS_PER_STATEMENT) break;
        }
      }
      if (setAside.length) {
        for (const { table, trigger } of setAside) await sql`alter table ${sql.table(table)} enable trigger ${sql.id(trigger)}`.execute(destination);
        await rewriteCountsPg(destination);
      }
      for (const { table } of COPIED_TABLES) tables.push({ table, source: totals.get(table)!, destination: await countOf(destination, table) });
      const differ = tables.filter((t) => t.source !== t.destination);
      if (differ.length)
        throw new Error(`the copy differs from the source: ${differ.map((t) => `${t.table} ${t.source} → ${t.destination}`).join(', ')}; nothing was copied`);
    });
  });
  const drift = await to.checkCounts();
  if (drift.length)
    throw new Error(
      `the copy's kept totals disagree with a recount (${drift.map((d) => d.key).join(', ')}): \`agora admin check --repair\` on the destination rewrites them`,
    );
  const changedSince: CopyReport['changedSince'] = [];
  for (const { table, source } of tables) {
    const now = await countOf(from.db, table);
    if (now !== source) changedSince.push({ table, snapshot: source, now });
  }
  return { tables, rows: tables.reduce((sum, t) => sum + t.destination, 0), changedSince };
}

/**
 * PostgreSQL: the counting triggers are off for the load (inside its transaction) and the counts rewritten at its
 * end: row by row, each update of an already updated count row walks the versions left behind. So is the NOTIFY of
 * new notifications (migration 0044): the store copied into is new, with no one to tell. DISABLE TRIGGER needs the
 * tables' owner; session_replication_role would need a superuser.
 */
async function setCountingTriggersAside(destination: Kysely<Database>): Promise<{ table: string; trigger: string }[]> {
  const { rows } = await sql<{ table: string; trigger: string }>`
    select c.relname as "table", g.tgname as "trigger" from pg_trigger g join pg_class c on c.oid = g.tgrelid
    where c.relnamespace = current_schema()::regnamespace and not g.tgisinternal
      and g.tgname = any(${[...COUNTING_TRIGGERS_PG.map((t) => t.trigger), NOTIFY_TRIGGER]})`.execute(destination);
  for (const { table, trigger } of rows)
    await sql`alter table ${sql.table(table)} disable trigger ${sql.id(trigger)}`.execute(destination).catch((error: { code?: string }) => {
      // insufficient_privilege
      if (error?.code !== '42501') throw error;
      throw new Error(`a copy into PostgreSQL sets the tables' counting triggers aside for the load, which only their owner may: run it as the role that owns the tables (${String((error as Error).message)})`);
    });
  return rows;
}

async function readBatch(db: Kysely<Database>, table: string, key: readonly string[], after?: unknown[]): Promise<Record<string, unknown>[]> {
  let q = db.selectFrom(table as keyof Database).selectAll();
  if (after) q = q.where(sql<boolean>`(${sql.join(key.map((k) => sql.ref(k)))}) > (${sql.join(after)})`);
  for (const k of key) q = q.orderBy(sql.ref(k));
  return (await q.limit(ROWS_PER_STATEMENT).execute()) as Record<string, unknown>[];
}

/** Empty: no rows but the default roles and the kept counts that migrations write. */
async function requireEmpty(db: Kysely<Database>): Promise<void> {
  for (const { table } of COPIED_TABLES) {
    let q = db.selectFrom(table).select(sql.lit(1).as('one'));
    if (table === 'permission_sets') q = q.where('system_key', 'is', null);
    if (await q.limit(1).executeTakeFirst()) throw new Error(`the destination is not empty (table ${table} has rows): copy only into a new, empty store`);
  }
}
