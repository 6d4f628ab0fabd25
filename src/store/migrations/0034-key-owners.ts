import type { Kysely, Migration } from 'kysely';
import { inOneTransaction } from './steps.js';

/**
 * A user's API keys are walked in id order, a snapshot: it imports nothing from the live code.
 *
 * `GET /api_keys?user_id=` pages like every list (a walk in key order, its total counted beside it): the index
 * gives one user's keys in order, where the walk read every key's row to find theirs.
 */
export const keyOwners: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async () => {
      await db.schema.createIndex('api_keys_user_id').on('api_keys').columns(['user_id', 'id']).execute();
    });
  },
};
