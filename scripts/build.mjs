// Bundles the CLI with esbuild (`npm run build`, run by `npm install` and `npm test`): node then reads one file
// at start instead of a few hundred, and each command's heavy modules sit in chunks loaded by its action only.
// Type checking is tsc's (`npm test` runs `tsc --noEmit`).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// zod re-exports its messages in some forty languages (`z.locales`), ~260 KB of the bundle that every command
// using a schema would compile at start; agora speaks English and configures nothing else, so only the English
// locale is bundled (zod sets it as the default itself).
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: resolve(dirname(args.importer), args.path), namespace: 'zod-english-only' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(resolve(dirname(args.path), 'en.js'))};`,
      resolveDir: dirname(args.path),
    }));
  },
};


rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // AGORA_MINIFY=0 keeps names and lines, for reading a CPU profile.
  minify: process.env.AGORA_MINIFY !== '0',
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
  // Server-side packages stay in node_modules: a native addon, and packages that find files of their own at run time.
  // ink (agora queue) and React load only in that command, from node_modules (ink's optional devtools too).
  external: ['better-sqlite3', 'pg', 'fastify', '@fastify/*', 'pino', 'kysely', 'ink', 'react', 'react-devtools-core'],
  // Bundled CommonJS packages call require(); an ES module has none unless it is given one.
  banner: { js: "import { createRequire as __agoraRequire } from 'node:module'; const require = __agoraRequire(import.meta.url);" },
});
