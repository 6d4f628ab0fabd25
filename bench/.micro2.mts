import { openStore } from '../src/store/open.js';
import Database from 'better-sqlite3';
const file = '/tmp/trace/store.db';
const raw = new Database(file, { readonly: true });
const member = (raw.prepare(`select id from users where nickname='bench_0'`).get() as any).id;
const log: any[] = [];
const store: any = await openStore(file, { onQuery: (sql: string, p: unknown[]) => log.push({ sql, p }) } as any);
const page = { page: 1, per_page: 25 } as any;
for (const [label, f] of [['member pages', () => store.pages.list({}, { id: member, isAdmin: false }, page)], ['admin pages', () => store.pages.list({}, { id: member, isAdmin: true }, page)]] as const) {
  log.length = 0;
  await f();
  console.log('##', label);
  for (const q of log) {
    const st = raw.prepare(q.sql.replace(/\b(limit|offset) \?/gi, '$1 ? + 0'));
    const M = 2000; const t = process.hrtime.bigint(); for (let i = 0; i < M; i++) st.all(...q.p);
    console.log((Number(process.hrtime.bigint() - t) / M / 1000).toFixed(1), 'µs', q.sql.slice(0, 300), JSON.stringify(q.p).slice(0, 100));
    console.log('   PLAN', raw.prepare('explain query plan ' + q.sql).all(...q.p).map((r: any) => r.detail).join(' | '));
  }
}
