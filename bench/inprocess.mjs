#!/usr/bin/env node
// Bundles bench/inprocess.ts (the app from src/, as the tests run it) and runs it: see that file.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'node_modules', '.cache', 'agora-bench', 'inprocess.mjs');
await build({
  entryPoints: [join(here, process.env.BENCH_ENTRY ?? 'inprocess.ts')],
  outfile: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const r = spawnSync(process.execPath, ['--enable-source-maps', ...nodeArgs, out, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
