import Database from 'better-sqlite3';
const db = new Database('/tmp/trace/store.db', { readonly: true });
const A = db.prepare(`select "pages".*, "pages"."id" as "__k0" from "pages" order by "pages"."id" asc limit ? + 0`);
const B = db.prepare(`select "pages".*, "pages"."id" as "__k0", (coalesce((select "n" from "list_counts" where "key" = ?), 0)) as "__total" from "pages" order by "pages"."id" asc limit ? + 0`);
const C = db.prepare(`select "key", "n" from "list_counts" where "key" in (?)`);
const run = (f, M = 3000) => { const t = process.hrtime.bigint(); for (let i = 0; i < M; i++) f(); return Number(process.hrtime.bigint() - t) / M / 1000; };
for (let r = 0; r < 5; r++) {
  const a = run(() => { A.all(26); C.all('pages|*|*|*'); });
  const b = run(() => B.all('pages|*|*|*', 26));
  console.log('two statements', a.toFixed(1), ' one with total', b.toFixed(1));
}
