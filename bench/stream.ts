// A user's stream (`GET /users/{id}/stream`), read through the store as the route reads it: the first page, N times,
// on a store a benchmark seeded (by hand: `DB=file-or-postgres-url USER_ID=… [PAUSE_MS=…] BENCH_ENTRY=stream.ts node bench/inprocess.mjs`,
// AGORA_SECRET_KEY for PostgreSQL). Prints each read's wall time, and with SQLLOG=1 the statements.
import { openStore } from '../src/store/open.js';

const target = process.env.DB;
const user = process.env.USER_ID;
if (!target || !user) throw new Error('DB and USER_ID are required');
const store = await openStore(target, {
  secretKey: process.env.AGORA_SECRET_KEY,
  onQuery: process.env.SQLLOG ? (text, parameters) => console.log(JSON.stringify([text, parameters])) : undefined,
});
const viewer = { id: user, isAdmin: false };
const times: string[] = [];
let shown = '';
for (let i = 0; i < Number(process.env.N ?? 10); i++) {
  // PAUSE_MS: idle this long before each read after the first (a connection pool may close idle connections).
  if (i > 0 && process.env.PAUSE_MS) await new Promise((resolve) => setTimeout(resolve, Number(process.env.PAUSE_MS)));
  const start = performance.now();
  const page = (await store.statuses.stream(user, viewer, new Date().toISOString(), { page: 1, per_page: 25 }))!;
  times.push((performance.now() - start).toFixed(1));
  shown = `${page.rows.length} rows of ${page.total}`;
}
console.log(`stream of ${user}: ${shown}; ms a read: ${times.join(' ')}`);
await store.close();
