import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_MIGRATIONS } from '../../src/store/store.js';
import { removeDir } from '../helpers/server.js';
import { onPostgres, openRaw, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'agora-concurrent-migrations-'));
afterAll(() => removeDir(root));

/** A process that opens the store TARGET at the time START (ms) and prints the migrations it applied. */
const OPENER = `
import { openStore } from './src/store/open.js';
const { TARGET, START, SECRET } = process.env;
await new Promise((resolve) => setTimeout(resolve, Number(START) - Date.now()));
let applied = [];
const store = await openStore(TARGET, { secretKey: SECRET || undefined, onMigrated: (names) => (applied = names) });
await store.close();
process.stdout.write(JSON.stringify(applied));
`;
// The store's source bundled once (its packages left to node_modules), so that each process starts in milliseconds.
let opener = '';
beforeAll(async () => {
  const { outputFiles } = await build({
    stdin: { contents: OPENER, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    packages: 'external',
  });
  opener = outputFiles[0]!.text;
});

/** Runs the opener in its own node process; its bare imports resolve from the repository (its working folder). */
function open(target: string, start: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, TARGET: target, START: String(start), SECRET: onPostgres ? TEST_SECRET_KEY : '' };
    const child = spawn(process.execPath, ['--input-type=module'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opener);
  });
}

describe('a new store opened by several processes at once', () => {
  it('is migrated by one of them, each migration applied and recorded once; the others wait and find it done', async () => {
    for (let round = 0; round < 4; round++) {
      const target = await storeTargetFor(mkdtempSync(join(root, `r${round}-`)), { empty: true });
      const start = Date.now() + 1000;
      const runs = await Promise.all(Array.from({ length: 6 }, () => open(target, start)));
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      // Each migration's `up` ran in one process only: the lists they applied add up to every migration once.
      const applied = runs.flatMap((run) => JSON.parse(run.stdout) as string[]);
      expect(applied).toEqual([...KNOWN_MIGRATIONS]);
      const raw = await openRaw(target);
      try {
        expect((await raw.all<{ name: string }>('select name from kysely_migration order by name')).map((r) => r.name)).toEqual([...KNOWN_MIGRATIONS]);
      } finally {
        await raw.close();
      }
    }
  });
});
