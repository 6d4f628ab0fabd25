import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { notifyMadeUp, seedMembers, useApp } from '../helpers/app.js';
import { nodes, type PlanNode } from '../helpers/plans.js';
import { newId } from '../../src/shared/ids.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { onPostgres, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * PostgreSQL plans agora's named statements once (docs/performance.md: left to choose, it planned a Member's list
 * again on every run) and never compiles them (JIT: a stream of many sources spent seconds compiling each run),
 * on every connection of the pool, whatever options the URL carries (the tests' URL sets a `search_path`); and keeps
 * its connections, with what they planned.
 */
describe('PostgreSQL connections', () => {
  const t = useApp();
  it.skipIf(!onPostgres)('use generic plans for the named statements, and no JIT compilation [runs with AGORA_TEST_DB]', async () => {
    // Several at once, so that the pool opens several connections.
    const settings = await Promise.all(
      Array.from({ length: 4 }, () =>
        sql<{ mode: string; jit: string; cost: string }>`select current_setting('plan_cache_mode') as mode, current_setting('jit') as jit, current_setting('random_page_cost') as cost`.execute(t.store.db),
      ),
    );
    for (const { rows } of settings) expect(rows[0]).toEqual({ mode: 'force_generic_plan', jit: 'off', cost: '1.1' });
  });

  it.skipIf(!onPostgres)('stay open while idle, with the statements they prepared (pg would close one idle for 10 s) [runs with AGORA_TEST_DB]', async () => {
    // Four at once, each holding its connection a moment, so that the pool has four; a server's background work (the
    // webhook sender, each second) keeps one of them busy, not the others.
    const backends = async () =>
      new Set(
        await Promise.all(
          Array.from({ length: 4 }, async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.2)`.execute(t.store.db)).rows[0]!.pid),
        ),
      );
    const before = await backends();
    expect(before.size).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect(await backends()).toEqual(before);
  }, 20_000);

  it.skipIf(!onPostgres)('keep PGOPTIONS when the URL has no options of its own, with generic plans and no JIT beside them [runs with AGORA_TEST_DB]', async () => {
    const url = new URL(t.file);
    const schema = /search_path=(\S+)/.exec(url.searchParams.get('options') ?? '')![1]!;
    url.searchParams.delete('options');
    const before = process.env.PGOPTIONS;
    process.env.PGOPTIONS = `-c search_path=${schema}`;
    try {
      const store = await openPostgresStore(url.toString(), { secretKey: TEST_SECRET_KEY });
      try {
        const { rows } = await sql<{ schema: string; mode: string; jit: string }>`select current_schema() as schema, current_setting('plan_cache_mode') as mode, current_setting('jit') as jit`.execute(store.db);
        expect(rows[0]).toEqual({ schema, mode: 'force_generic_plan', jit: 'off' });
      } finally {
        await store.close();
      }
    } finally {
      if (before === undefined) delete process.env.PGOPTIONS;
      else process.env.PGOPTIONS = before;
    }
  });
});

describe('PostgreSQL lists', () => {
  const statements: { text: string; parameters: readonly unknown[] }[] = [];
  const t = useApp({ storeOptions: { onQuery: (text, parameters) => void statements.push({ text, parameters }) } });

  /** The generic plan of `statement` (what each connection runs), planned on one connection of the store's pool. */
  async function genericPlan(statement: { text: string; parameters: readonly unknown[] }): Promise<PlanNode> {
    const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);
    return t.store.db.connection().execute(async (db) => {
      await sql.raw(`prepare probe as ${statement.text}`).execute(db);
      try {
        const { rows } = await sql.raw<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`explain (format json) execute probe(${statement.parameters.map(literal).join(', ')})`).execute(db);
        return rows[0]!['QUERY PLAN'][0]!.Plan;
      } finally {
        await sql.raw('deallocate probe').execute(db);
      }
    });
  }

  it.skipIf(!onPostgres)("walk the list's own index whatever the statistics say: a user's notifications when few users have any [runs with AGORA_TEST_DB]", async () => {
    // One notification for the newest Member, then 900 for three others, each the newest of the table in turn: a walk
    // of the primary key that filters by user would read every one of them to find the first.
    const [few, ...busy] = await seedMembers(t.store, 4);
    const notify = (users: string[]) => notifyMadeUp(t.store, users[0]!, users.map((userId) => ({ userId, id: newId() })));
    await notify([few!]);
    for (let i = 0; i < 300; i++) await notify(busy);
    // What the statistics of a young community say: notifications for two or three users.
    await sql`alter table notifications alter column user_id set (n_distinct = 2)`.execute(t.store.db);
    await sql`analyze notifications`.execute(t.store.db);

    statements.length = 0;
    const res = await t.call('GET', `/users/${few}/notifications`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const list = statements.find((s) => s.text.includes('from "notifications" as "n"'));
    expect(list, statements.map((s) => s.text).join('\n')).toBeDefined();
    const plan = nodes(await genericPlan(list!));
    const scans = plan.filter((n) => n['Relation Name'] === 'notifications');
    expect(scans).not.toEqual([]);
    for (const scan of scans) {
      expect(scan['Index Name'], JSON.stringify(scan)).toBe('notifications_user');
      expect(scan.Filter, JSON.stringify(scan)).toBeUndefined();
    }
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
  });
});
