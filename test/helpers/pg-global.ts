import { dropTestSchemas, onPostgres, PG_TEST_DB, withClient } from './store-target.js';

/**
 * vitest's global setup: with AGORA_TEST_DB, checks the database answers before any test (one clear line
 * otherwise), and drops the schemas the run's stores were made in after the last test.
 */
export async function setup(): Promise<void> {
  if (!onPostgres) return;
  await withClient((client) => client.query('select 1')).catch((error: Error) => {
    throw new Error(`AGORA_TEST_DB=${PG_TEST_DB} cannot be used: ${error.message}`);
  });
}

export async function teardown(): Promise<void> {
  await dropTestSchemas();
}
