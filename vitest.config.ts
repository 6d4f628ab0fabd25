import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // With AGORA_TEST_DB (PostgreSQL): checks the database first, drops the run's schemas at the end.
    globalSetup: ['test/helpers/pg-global.ts'],
    // On PostgreSQL every query is a round trip to another process (SQLite's run in this one): more time per test.
    // Bounds for a hung test, not for speed: on a loaded machine (CI shares it) the slowest tests have taken
    // ten times their usual few seconds.
    testTimeout: process.env.AGORA_TEST_DB ? 180_000 : 120_000,
    hookTimeout: 120_000,
    // scrypt at N = 2^10 instead of 2^14: the same hashes and checks, a sixteenth of the CPU (at the default cost,
    // hashing was about half of the suite's time). test/api/secrets-cost checks the default on its own.
    // The binaries the tests run share one cache folder (Node's compile cache, bin/agora.js), as one user's runs do:
    // each test's own HOME would give every run an empty one to fill.
    env: { AGORA_SCRYPT_COST: '10', XDG_CACHE_HOME: join(tmpdir(), `agora-test-cache-${process.getuid?.() ?? 0}`) },
    pool: 'forks',
    // Each fork runs its files one after another in one module graph (not a fresh one per file): importing the app
    // cost about 1.6 s a file, a third of the suite's time. No test leaves state behind in a module.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
  },
});
