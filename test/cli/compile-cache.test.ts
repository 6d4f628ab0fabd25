import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * bin/agora.js keeps Node's compile cache (Node ≥ 22.1) in the user's own cache folder, never in the shared temp
 * folder, and only while nobody else may write there: compiled code left by another account would run as agora.
 */
const root = mkdtempSync(join(tmpdir(), 'agora-compile-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const hasCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe(`the CLI's compile cache (${hasCache ? 'this Node has one' : 'Node 20: none'})`, () => {
  it("is kept in $XDG_CACHE_HOME/agora, private, and not used while others may write to it", async () => {
    const home = mkdtempSync(join(root, 'home-'));
    const cache = join(home, 'cache');
    const folder = join(cache, 'agora', 'node-compile-cache');
    const run = () => runCli(['--version'], { home, env: { XDG_CACHE_HOME: cache, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined } });
    expect((await run()).code).toBe(0);
    if (!hasCache) {
      // Nothing to keep: nothing is made.
      expect(existsSync(join(cache, 'agora'))).toBe(false);
      return;
    }
    expect(readdirSync(folder).length).toBeGreaterThan(0);
    expect(statSync(join(cache, 'agora')).mode & 0o777).toBe(0o700);
    expect(statSync(folder).mode & 0o777).toBe(0o700);

    // Its parent writable by others: the cache is neither read nor written.
    rmSync(folder, { recursive: true });
    mkdirSync(folder, { mode: 0o700 });
    chmodSync(join(cache, 'agora'), 0o777);
    expect((await run()).code).toBe(0);
    expect(readdirSync(folder)).toEqual([]);
    // Nor the folder itself.
    chmodSync(join(cache, 'agora'), 0o700);
    chmodSync(folder, 0o777);
    expect((await run()).code).toBe(0);
    expect(readdirSync(folder)).toEqual([]);
  });
});
