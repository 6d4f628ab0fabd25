import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
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
        sql<{ mode: string; jit: string }>`select current_setting('plan_cache_mode') as mode, current_setting('jit') as jit`.execute(t.store.db),
      ),
    );
    for (const { rows } of settings) expect(rows[0]).toEqual({ mode: 'force_generic_plan', jit: 'off' });
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
