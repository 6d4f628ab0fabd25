import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/store-target.js';

/**
 * PostgreSQL plans agora's named statements once (docs/performance.md: left to choose, it planned a Member's list
 * again on every run), on every connection of the pool, whatever options the URL carries (the tests' URL sets a
 * `search_path`).
 */
describe('PostgreSQL connections', () => {
  const t = useApp();
  it.skipIf(!onPostgres)('use generic plans for the named statements [runs with AGORA_TEST_DB]', async () => {
    // Several at once, so that the pool opens several connections.
    const modes = await Promise.all(
      Array.from({ length: 4 }, () => sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(t.store.db)),
    );
    for (const mode of modes) expect(mode.rows[0]?.plan_cache_mode).toBe('force_generic_plan');
  });
});
