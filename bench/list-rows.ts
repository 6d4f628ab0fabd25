// What SQLite and better-sqlite3 alone cost to give each list of the read-path benchmark's `first` class its rows:
// a yardstick beside issue 29's bound of 110 µs a request, which covers HTTP, the caller, the rows, the records and
// the JSON. Run by hand: `BENCH_ENTRY=list-rows.ts node bench/inprocess.mjs` (bundles this file first). Seeds the
// community of bench/read-path.mjs (10,000 pages, or BENCH_PAGES) in a temp dir, answers each list once through
// the real app (`createApp`, `inject`) to catch its statements, then runs each statement alone on a read-only
// connection of the same file, as arrays (`raw`, as agora reads them) and as better-sqlite3's objects, and counts
// only finding the rows (`count(*)` over the statement). Prints µs a run, the means of BENCH_RUNS (default 3000).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/server/app.js';
import { openSqliteStore } from '../src/store/sqlite.js';

// seed.mjs finds the CLI from its own place: imported where it is, not bundled.
const seedModule = join(process.cwd(), 'bench', 'seed.mjs');
const { benchEnv, seed } = (await import(seedModule)) as {
  benchEnv: (dir: string) => NodeJS.ProcessEnv;
  seed: (db: string, pages: number, env: NodeJS.ProcessEnv) => Promise<{ members: Record<string, string>[]; memberIds: string[]; pageIds: string[] }>;
};
const dir = mkdtempSync(join(tmpdir(), 'agora-list-rows-'));
const runs = Number(process.env.BENCH_RUNS ?? 3000);
try {
  const file = join(dir, 'agora.db');
  const env = benchEnv(dir);
  process.env.AGORA_SECRET_KEY = env.AGORA_SECRET_KEY;
  const s = await seed(file, Number(process.env.BENCH_PAGES ?? 10000), env);
  let caught: [string, unknown[]][] | undefined;
  const store = await openSqliteStore(file, { onQuery: (text, parameters) => caught?.push([text, [...parameters]]) });
  const app = await createApp({ store, rateLimit: false });
  const P = '/public-api/v1';
  const member = s.members[0]!;
  const lists: [string, string, Record<string, string>][] = [
    ['pages (a Member)', `${P}/pages`, member],
    ['users', `${P}/users`, member],
    ["a page's follows", `${P}/follows?followable_type=Page&followable_id=${s.pageIds[0]}`, member],
    ['current events (a Member)', `${P}/events?event_date=current_and_coming`, member],
    ['own notifications', `${P}/users/${s.memberIds[0]}/notifications`, member],
  ];
  const db = new Database(file, { readonly: true });
  const time = (statement: Database.Statement, parameters: unknown[]) => {
    for (let i = 0; i < 200; i++) statement.all(...parameters);
    const start = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) statement.all(...parameters);
    return Number(process.hrtime.bigint() - start) / 1000 / runs;
  };
  console.log('| list | rows × columns | find the rows | as arrays | as objects |\n|---|---|---|---|---|');
  for (const [label, url, headers] of lists) {
    await app.inject({ url, headers }); // the caller read and remembered first
    caught = [];
    const res = await app.inject({ url, headers });
    const statements = caught.filter(([text]) => /^\s*(select|with)/i.test(text));
    caught = undefined;
    if (res.statusCode !== 200 || statements.length !== 1) throw new Error(`${label}: ${res.statusCode}, ${statements.length} statements`);
    const [text, parameters] = statements[0]!;
    const sqlText = text.replace(/\b(limit|offset) \?/gi, '$1 ? + 0');
    const rows = db.prepare(sqlText).raw(true).all(...parameters) as unknown[][];
    const fmt = (us: number) => `${us.toFixed(0)} µs`;
    console.log(
      `| ${label} | ${rows.length} × ${rows[0]?.length ?? 0} | ${fmt(time(db.prepare(`select count(*) from (${sqlText})`), parameters))} | ` +
        `${fmt(time(db.prepare(sqlText).raw(true), parameters))} | ${fmt(time(db.prepare(sqlText), parameters))} |`,
    );
  }
  db.close();
  await app.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
