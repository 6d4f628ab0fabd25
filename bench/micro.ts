// Microbenchmarks of the store's list calls on a seeded store (by hand): `node bench/inprocess.mjs` builds the same way.
import { openSqliteStore } from '../src/store/sqlite.js';
import { listPages } from '../src/domain/pages.js';
import { PageListSchema } from '../src/shared/schemas/pages.js';

const file = process.argv[2]!;
const store = await openSqliteStore(file);
const raw = (await import('better-sqlite3')).default;
const db = new raw(file, { readonly: true });
const member = db.prepare(`select u.id from users u join permission_sets r on r.id = u.permission_set_id where r.system_key = 'members' order by u.id limit 1`).pluck().get() as string;
db.close();
const time = async (label: string, fn: () => Promise<unknown>, n = 2000) => {
  for (let i = 0; i < 200; i++) await fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  console.log(label.padEnd(50), ((c.user + c.system) / n).toFixed(1), 'µs');
};
const page = { page: 1, per_page: 25 };
const admin = { id: 'x', isAdmin: true };
const viewer = { id: member, isAdmin: false };
if (process.env.ONLY === 'member') { await time('member random', () => store.pages.list({}, viewer, { page: 1 + Math.floor(Math.random() * 400), per_page: 25 }), 20000); process.exit(0); }
if (process.env.ONLY === 'admin') { await time('pages.list admin p1', () => store.pages.list({}, admin, page), 20000); process.exit(0); }
await time('pages.list admin p1', () => store.pages.list({}, admin, page));
await time('pages.list member p1', () => store.pages.list({}, viewer, page));
await time('pages.list member p200', () => store.pages.list({}, viewer, { page: 200, per_page: 25 }));
await time('pages.list member random', () => store.pages.list({}, viewer, { page: 1 + Math.floor(Math.random() * 400), per_page: 25 }));
await time('pages.list admin random', () => store.pages.list({}, admin, { page: 1 + Math.floor(Math.random() * 400), per_page: 25 }));
await time('pages.list member public random', () => store.pages.list({ privacy: 'public' }, viewer, { page: 1 + Math.floor(Math.random() * 400), per_page: 25 }));
{
  const { Kysely, SqliteDialect, sql } = await import('kysely');
  const k = new Kysely<{ pages: { id: string; privacy: string } }>({ dialect: new SqliteDialect({ database: new raw(':memory:') }) });
  await time('kysely build+compile fetch', async () =>
    k.selectFrom('pages').where('pages.privacy', '=', 'public').where(sql<boolean>`(${sql.ref('pages.id')}) >= (${sql.val('x')})`).selectAll('pages').select(sql.ref('pages.id').as('__k0')).orderBy('pages.id', 'asc').limit(26).compile());
  const built = k.selectFrom('pages').where('pages.privacy', '=', 'public').where(sql<boolean>`(${sql.ref('pages.id')}) >= (${sql.val('x')})`).selectAll('pages').select(sql.ref('pages.id').as('__k0')).orderBy('pages.id', 'asc').limit(26);
  await time('kysely compile only', async () => built.compile());
  await time('kysely build only', async () =>
    k.selectFrom('pages').where('pages.privacy', '=', 'public').where(sql<boolean>`(${sql.ref('pages.id')}) >= (${sql.val('x')})`).selectAll('pages').select(sql.ref('pages.id').as('__k0')).orderBy('pages.id', 'asc').limit(26));
}
await time('pages.getById', () => store.pages.getById(member));
await time('dataVersion', async () => store.dataVersion());
const caller = { user: { id: member }, isAdmin: false } as never;
const res = await listPages({ store, clock: () => new Date() }, caller, { ...page } as never);
await time('JSON.stringify list', async () => JSON.stringify(res));
await time('zod parse list', async () => PageListSchema.parse(res));
await store.close();
