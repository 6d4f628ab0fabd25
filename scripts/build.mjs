// Bundles the program, client and server, with esbuild (`npm run build`, run by `npm install` and `npm test`): node
// then reads one file at start instead of a few hundred, and each command's heavy modules sit in chunks loaded by
// its action only. What is bundled is a devDependency in package.json: an install of the package downloads only
// what the bundle leaves external and needs at run time (`dependencies`). Type checking is tsc's (`npm test` runs
// `tsc --noEmit`).
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
  // AGORA_MINIFY=0 keeps names and lines, for reading a CPU profile.
  minify: process.env.AGORA_MINIFY !== '0',
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
  // No source maps: nothing reads them, and they made two thirds of the package.
  sourcemap: false,
  // better-sqlite3 is a native addon, the one runtime dependency. The others are optional packages loaded only on
  // request, neither installed nor bundled: pg-native (pg's native driver), pg-cloudflare (Cloudflare Workers)
  // and react-devtools-core (ink with DEV=true).
  external: ['better-sqlite3', 'pg-native', 'pg-cloudflare', 'react-devtools-core'],
  // Bundled CommonJS packages call require(); an ES module has none unless it is given one.
  banner: { js: "import { createRequire as __agoraRequire } from 'node:module'; const require = __agoraRequire(import.meta.url);" },
});
