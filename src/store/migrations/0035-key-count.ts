import { sql, type Kysely, type Migration } from 'kysely';
import { recount, replaceCounterTriggers, type CounterSpec } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * API keys counted, a snapshot: it imports nothing from the live code but the frozen trigger generator
 * (`counting.ts`).
 *
 * `GET /api_keys` without a filter counted every key for its total (a walk of the whole index: one key a user, so
 * as long as the users); it now reads a kept count, as every other list does. A user's keys are still counted on
 * their index (a handful), so no key per user is kept.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export const API_KEYS: CounterSpec = { list: 'api_keys', table: 'api_keys', dims: [] };

export const keyCount: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async (pg) => {
      await replaceCounterTriggers(db, API_KEYS, pg);
      for (const [key, n] of await recount(db, API_KEYS))
        await sql`insert into list_counts (key, n) values (${key}, ${n}) on conflict (key) do update set n = excluded.n`.execute(db);
    });
  },
};
