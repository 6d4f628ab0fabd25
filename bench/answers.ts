// The answers of a build to a fixed, seeded set of list and read requests (every list, random pages, filters,
// four callers, a third of them following the Link cursor), as one digest: two builds that print the same
// digest on copies of the same seeded store answered byte for byte the same (bodies, statuses, Link headers;
// an error's request id aside). By hand: `BENCH_ENTRY=answers.ts node bench/inprocess.mjs DB [N]`
// (`VERBOSE=1` prints one line per request).
import { createHash } from 'node:crypto';
import { issueApiKey } from '../src/domain/api-keys.js';
import { createApp } from '../src/server/app.js';
import { openSqliteStore } from '../src/store/sqlite.js';
const [file, countArg] = process.argv.slice(2);
let state = 12345;
const rnd = () => { state ^= state << 13; state ^= state >>> 17; state ^= state << 5; return (state >>> 0) / 2 ** 32; };
const store = await openSqliteStore(file!);
const deps = { store, clock: () => new Date() };
const app = await createApp({ store, rateLimit: false });
const raw = (await import('better-sqlite3')).default;
const db = new raw(file!, { readonly: true });
const members = db.prepare(`select u.id from users u join permission_sets r on r.id = u.permission_set_id where r.system_key = 'members' order by u.id limit 3`).pluck().all() as string[];
const eventsPage = db.prepare(`select id from pages order by id limit 1 offset 137`).pluck().get() as string;
db.close();
const admin = await issueApiKey(deps);
const keys = [admin, ...(await Promise.all(members.map((m) => issueApiKey(deps, m))))];
const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)]!;
const r = (n: number) => 1 + Math.floor(rnd() * n);
const P = '/public-api/v1';
const urls = [
  () => `/pages?page=${r(400)}${pick(['', '&privacy=public', '&privacy=private', '&privacy=secret'])}${pick(['', '&per_page=7', '&per_page=100'])}`,
  () => `/follows?page=${r(400)}${pick(['', '&followable_type=User', '&followable_type=Page'])}`,
  () => `/events?page=${r(40)}${pick(['', '&event_date=current_and_coming'])}`,
  () => `/users?page=${r(4)}`,
  () => `/page_access_requests?page=${r(40)}`,
  () => `/invites?page=${r(40)}${pick(['', '&state=waiting'])}`,
  () => `/users/${pick(members)}/notifications?page=${r(80)}`,
  () => `/pages/${eventsPage}`,
  () => `/events?page=${r(40)}&per_page=${r(100)}`,
];
const count = Number(countArg ?? 2000);
const out = createHash('sha256');
let follow: string | undefined;
for (let i = 0; i < count; i++) {
  const ki = Math.floor(rnd() * keys.length);
  const url = follow ?? P + pick(urls)();
  const res = await app.inject({ method: 'GET', url, headers: { 'api-key': keys[ki]!.api_key, 'api-secret': keys[ki]!.api_secret } });
  const link = res.headers.link as string | undefined;
  // Follow the cursor of one answer in three (the cursor path), else a new URL.
  follow = link && rnd() < 0.33 ? /<([^>]+)>/.exec(link)![1] : undefined;
  const line = `${url} ${ki} ${res.statusCode} ${link ?? ''} ${createHash('sha256').update(res.statusCode < 300 ? res.body : res.body.replace(/"request_id":"[^"]*"/, '')).digest('hex').slice(0, 16)}`;
  out.update(line + '\n');
  if (process.env.VERBOSE) console.log(line);
}
console.log('digest', out.digest('hex'));
await app.close();
await store.close();
