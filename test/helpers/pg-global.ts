import type { TestProject } from 'vitest/node';
import { dropTestSchemas, makeSchemaTemplate, onPostgres, PG_TEST_DB, withClient } from './store-target.js';

/**
 * vitest's global setup: with AGORA_TEST_DB, checks the database answers before any test (one clear line
 * otherwise), migrates the schema the others are copied from (store-target.ts), and drops the schemas the
 * run's stores were made in after the last test.
 */
export async function setup(project: TestProject): Promise<void> {
  if (!onPostgres) return project.provide('agoraSchemaTemplate', null);
  await withClient((client) => client.query('select 1')).catch((error: Error) => {
    throw new Error(`AGORA_TEST_DB=${PG_TEST_DB} cannot be used: ${error.message}`);
  });
  project.provide('agoraSchemaTemplate', await makeSchemaTemplate());
}

export async function teardown(): Promise<void> {
  await dropTestSchemas();
}
