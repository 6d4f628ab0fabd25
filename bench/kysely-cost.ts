// What building and compiling a first page's statement costs the server on PostgreSQL, with no database: the store
// on a Kysely whose driver answers one row (the total) without a round trip, so that each list runs the one statement
// it runs when served. Run by hand: `BENCH_ENTRY=kysely-cost.ts node bench/inprocess.mjs` (N=20000 for steadier figures).
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery } from 'kysely';
import type { Database } from '../src/store/schema.js';
import { createKyselyStore } from '../src/store/store.js';

let statements = 0;
let chars = 0;
class AnsweringDriver extends DummyDriver {
  override async acquireConnection() {
    const executeQuery = async (query: CompiledQuery) => {
      statements++;
      chars += query.sql.length;
      return { rows: [{ __total: 0 }] };
    };
    return { executeQuery, streamQuery: async function* () {} } as never;
  }
}
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new AnsweringDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const store = createKyselyStore(db, 'postgres');
const page = { page: 1, per_page: 25 };
const member = { id: '01a21ca8bde44ba0bb5cdcc5aa4b4f16', isAdmin: false };
const admin = { id: '01a21ca8bde66b4b71848013db55aff8', isAdmin: true };
const PRIVACY = [undefined, 'public', 'private', 'secret'];
// The lists of read-path.mjs's first pages.
const lists: Record<string, () => Promise<unknown>> = {
  'pages (random privacy, Admin or Member)': () =>
    store.pages.list({ privacy: PRIVACY[Math.floor(Math.random() * 4)] }, Math.random() < 0.25 ? admin : member, page),
  users: () => store.users.list({}, page),
  "a page's follows": () => store.follows.list({ followable_type: 'Page', followable_id: '01a21ca8bf1a5bc884b973d3ddf3aa58' }, member, page),
  'current events': () => store.events.list({ runningFrom: new Date().toISOString() }, member, page),
  'own notifications': () => store.notifications.list(member.id, false, page),
};
const n = Number(process.env.N ?? 5000);
// Every list warmed up before any is measured: the first measured would pay for the JIT of the code they share.
for (const fn of Object.values(lists)) for (let i = 0; i < 1000; i++) await fn();
for (const [name, fn] of Object.entries(lists)) {
  statements = 0;
  chars = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const used = process.cpuUsage(start);
  console.log(name.padEnd(42), `${((used.user + used.system) / n).toFixed(1).padStart(6)} µs`, `${(statements / n).toFixed(1)} statement, ${Math.round(chars / statements)} characters`);
}
