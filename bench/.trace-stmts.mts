// scratch: which statements a request runs, and what each costs alone (not committed)
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/server/app.js';
import { openStore } from '../src/store/open.js';
// @ts-ignore
import { benchEnv, seed } from './seed.mjs';

const dir = process.env.TRACE_DIR ?? mkdtempSync(join(tmpdir(), 'trace-'));
const file = join(dir, 'store.db');
const env = benchEnv(dir);
Object.assign(process.env, { AGORA_SECRET_KEY: env.AGORA_SECRET_KEY });
const s = await seed(file, Number(process.env.TRACE_PAGES ?? 10000), env);
let log: { sql: string; params: readonly unknown[] }[] = [];
const store = await openStore(file, { secretKey: env.AGORA_SECRET_KEY, onQuery: (sql: string, params: readonly unknown[]) => log.push({ sql, params }) } as any);
const app = await createApp({ store, rateLimit: false });
const raw = new Database(file, { readonly: true });
const paths = (process.env.TRACE_PATHS ?? '/pages,/pages?privacy=secret,/users,/events').split(',');
for (const who of ['admin', 'member']) {
  const headers = who === 'admin' ? s.admin : s.members[0];
  for (const p of paths) {
    const url = '/public-api/v1' + p.replace('{ME}', who === 'admin' ? s.adminId : s.memberIds[0]).replace('{PAGE}', s.pageIds[5]);
    await app.inject({ method: 'GET', url, headers }); // warm
    log = [];
    const t0 = process.hrtime.bigint();
    const N = 300;
    for (let i = 0; i < N; i++) await app.inject({ method: 'GET', url, headers });
    const per = Number(process.hrtime.bigint() - t0) / N / 1000;
    const res = await app.inject({ method: 'GET', url, headers });
    const stmts = log.slice(0, log.length / N);
    console.log(`\n### ${who} GET ${p}: ${res.statusCode}, ${res.body.length} B, inject ${per.toFixed(0)} µs/req, ${stmts.length} statements`);
    for (const q of stmts) {
      const st = raw.prepare(q.sql.replace(/\b(limit|offset) \?/gi, '$1 ? + 0'));
      const params = q.params.map((v) => (typeof v === 'boolean' ? Number(v) : v));
      const M = 500;
      const t = process.hrtime.bigint();
      let n = 0;
      for (let i = 0; i < M; i++) n = st.reader ? st.all(...params).length : 0;
      const us = Number(process.hrtime.bigint() - t) / M / 1000;
      const plan = raw.prepare('explain query plan ' + q.sql).all(...params).map((r: any) => r.detail).join(' | ');
      console.log(`${us.toFixed(1).padStart(7)} µs ${String(n).padStart(4)} rows  ${q.sql.slice(0, 260)}\n      PLAN ${plan}`);
    }
  }
}
await app.close();
