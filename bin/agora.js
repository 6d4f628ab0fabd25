#!/usr/bin/env node
// Node ≥ 22.1 keeps the bundle's compiled code on disk and a later run reuses it instead of compiling again: ~45 ms
// less CPU for each client command (docs/performance.md). Node 20 has no such cache: nothing happens there.
// Never in the shared temp folder, Node's default: another account could leave compiled code there for agora to
// run with its owner's credentials. In the user's own cache folder ($XDG_CACHE_HOME or ~/.cache, agora/), used only
// while it and its parent are theirs and writable by nobody else; NODE_COMPILE_CACHE names another,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. The bundle is imported after it (a static import would load it first).
import { mkdirSync, statSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

if (module.enableCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  if (process.env.NODE_COMPILE_CACHE) module.enableCompileCache();
  else {
    try {
      const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agora', 'node-compile-cache');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const own = (path) => {
        const stat = statSync(path);
        return stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
      };
      if (own(dir) && own(dirname(dir))) module.enableCompileCache(dir);
    } catch {
      // No cache folder (a read-only home): the program runs as well without it.
    }
  }
}
const { main } = await import('../dist/main.js');
main(process.argv);
