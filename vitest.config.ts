import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // With AGORA_TEST_DB (PostgreSQL): checks the database first, drops the run's schemas at the end.
    globalSetup: ['test/helpers/pg-global.ts'],
    // On PostgreSQL every query is a round trip to another process (SQLite's run in this one): more time per test.
    testTimeout: process.env.AGORA_TEST_DB ? 60_000 : 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
