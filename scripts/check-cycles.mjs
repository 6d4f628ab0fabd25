// `npm run cycles` (part of `npm test`): no import cycle in src/, type-only imports included (madge, through the
// TypeScript sources). Exits 1 naming each cycle.
import madge from 'madge';

const result = await madge('src', { fileExtensions: ['ts'], tsConfig: 'tsconfig.json' });
// A module of ours that madge could not resolve would hide its cycles (packages it skips are not ours).
const unread = result.warnings().skipped.filter((path) => /^[./]/.test(path));
if (unread.length) {
  console.error(`madge could not read: ${unread.join(', ')}`);
  process.exit(1);
}
const cycles = result.circular();
if (cycles.length) {
  console.error(`${cycles.length} import cycles:\n${cycles.map((cycle) => `  ${cycle.join(' > ')}`).join('\n')}`);
  process.exit(1);
}
console.log(`no import cycle in src/ (${Object.keys(result.obj()).length} files)`);
