// Server CPU per request without HTTP or a load generator: the real app (`createApp`) on a store the realistic
// benchmark seeded (`BENCH_KEEP=1 BENCH_RUNS=bare npm run bench` keeps one), answering `inject` in a loop with
// the realistic mix. Run by hand: `node bench/inprocess.mjs DB [requests] [mix]` (it bundles this file first);
// `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` profiles the server's own work. mix: varied (default), pages, follows,
// events, notifications, users, requests, invites (each list, as in the realistic benchmark, a random page that
// exists for a random caller and filter), url (BENCH_URL), create, mixed (90 % varied reads, 10 % follows), first,
// firstadmin, follow (a Member following any page, as the realistic benchmark's follows: 201, 403, 404, 409). The
// follow and mixed mixes show the CPU of each answer apart (with BENCH_CONCURRENCY=1); `process.cpuUsage` is called
// twice a request, which a machine with slow system calls shows as a share of every figure.
// BENCH_STATEMENTS=1 counts the statements per request (with SQLLOG=1 it also prints each, with its parameters).
import { writeFileSync } from 'node:fs';
import { issueApiKey } from '../src/domain/api-keys.js';
import { createApp } from '../src/server/app.js';
import { openSqliteStore } from '../src/store/sqlite.js';
// @ts-expect-error: a plain .mjs module of the benchmarks, without types.
import { readThrough } from './page-cache.mjs';

const [file, countArg, mix = 'varied'] = process.argv.slice(2);
// BENCH_SEED: the same requests every run (a seeded generator instead of Math.random), so that instruction
// counts (`valgrind --tool=callgrind`) of two builds compare the same work.
if (process.env.BENCH_SEED) {
  let state = Number(process.env.BENCH_SEED) >>> 0 || 1;
  Math.random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}
if (!file) throw new Error('usage: inprocess DB [requests] [mix]');
const count = Number(countArg ?? 2000);
// BENCH_STATEMENTS=1: counts the SQL statements run per request (and the skips to a page number among them),
// a figure the machine's load does not move (transaction control statements not counted).
let statements = 0;
let skips = 0;
const countStatements = (text: string, params?: readonly unknown[]) => {
  if (process.env.SQLLOG) console.log('SQL', JSON.stringify([text, params]));
  if (/^(savepoint|release|begin|commit|rollback)/i.test(text.trim())) return;
  statements++;
  if (/ offset /i.test(text)) skips++;
};
const store = await openSqliteStore(file, process.env.BENCH_STATEMENTS === '1' ? { onQuery: countStatements } : {});
const deps = { store, clock: () => new Date() };
const app = await createApp({ store, rateLimit: false });
// The store read into the page cache first (`page-cache.mjs`).
readThrough(file);
const raw = (await import('better-sqlite3')).default;
const db = new raw(file, { readonly: true });
const members = db.prepare(`select u.id from users u join permission_sets r on r.id = u.permission_set_id where r.system_key = 'members' order by u.id limit 3`).pluck().all() as string[];
const config = db.prepare('select id from page_configurations limit 1').pluck().get() as string;
// The follows of the follow and mixed mixes: of any page, as the realistic benchmark's (BENCH_FOLLOW_PRIVACY=secret,
// private or public: of pages of that privacy only).
const followed = process.env.BENCH_FOLLOW_PRIVACY;
const allPageIds = mix !== 'follow' && mix !== 'mixed' ? [] : followed
  ? (db.prepare('select id from pages where privacy = ?').pluck().all(followed) as string[])
  : (db.prepare('select id from pages').pluck().all() as string[]);
db.close();
const admin = await issueApiKey(deps);
const keys = [admin, ...(await Promise.all(members.map((m) => issueApiKey(deps, m))))];
const pick = <T>(a: T[]): T => a[Math.floor(Math.random() * a.length)]!;
const rand = (n: number) => 1 + Math.floor(Math.random() * n);
const P = '/public-api/v1';
// The list mixes ask, as the realistic benchmark does, random pages that exist: for each caller and filter, a
// page from 1 to that list's own last page (asked first), up to the benchmark's cap.
const LISTS: Record<string, { path: (key: (typeof keys)[number]) => string; filters: string[]; cap: number; who: typeof keys }> = {
  pages: { path: () => '/pages', filters: ['', '&privacy=public', '&privacy=private', '&privacy=secret'], cap: 400, who: keys },
  users: { path: () => '/users', filters: [''], cap: 4, who: keys },
  follows: { path: () => '/follows', filters: ['', '&followable_type=User'], cap: 400, who: keys },
  requests: { path: () => '/page_access_requests', filters: [''], cap: 40, who: keys },
  invites: { path: () => '/invites', filters: ['', '&state=waiting'], cap: 40, who: keys },
  events: { path: () => '/events', filters: ['', '&event_date=current_and_coming'], cap: 40, who: keys },
  notifications: { path: (key) => `/users/${key.user_id}/notifications`, filters: [''], cap: 80, who: keys.slice(1) },
};
const ranges: { key: (typeof keys)[number]; url: string; filter: string; last: number }[] = [];
const listed = LISTS[mix];
if (listed)
  for (const key of listed.who)
    for (const filter of listed.filters) {
      const url = `${P}${listed.path(key)}`;
      const res = await app.inject({ method: 'GET', url: `${url}?per_page=25${filter}`, headers: { 'api-key': key.api_key, 'api-secret': key.api_secret } });
      const body = res.json() as { total_items?: number } | unknown[];
      const total = Array.isArray(body) ? Number(res.headers['x-total-count']) : body.total_items!;
      ranges.push({ key, url, filter, last: Math.max(1, Math.min(listed.cap, Math.ceil(total / 25))) });
    }
let n = 0;
const varied = (key: (typeof keys)[number]) =>
  ({ method: 'GET', url: `${P}/pages?page=${rand(400)}${pick(['', '&privacy=public', '&privacy=private', '&privacy=secret'])}`, key }) as const;
const next = (): { method: 'GET' | 'POST'; url: string; key: (typeof keys)[number]; body?: unknown } => {
  const key = pick(keys);
  if (ranges.length) {
    const r = pick(ranges);
    return { method: 'GET', url: `${r.url}?page=${rand(r.last)}${r.filter}`, key: r.key };
  }
  switch (mix) {
    case 'url':
      // BENCH_URL: one URL (after /public-api/v1), each {N} in it a random number 1–N, as a random caller.
      return { method: 'GET', url: `${P}${(process.env.BENCH_URL ?? '/pages').replace(/\{(\d+)\}/g, (_, n: string) => String(rand(Number(n))))}`, key };
    case 'first':
      return { method: 'GET', url: `${P}/pages?page=1`, key: pick(keys.slice(1)) };
    case 'firstadmin':
      return { method: 'GET', url: `${P}/pages?page=1`, key: admin };
    case 'create':
      return { method: 'POST', url: `${P}/pages`, key: admin, body: { name: `Created ${n++}`, page_configuration_id: config, privacy: 'public', user_id: admin.user_id } };
    case 'follow': {
      const i = 1 + Math.floor(Math.random() * 3);
      return { method: 'POST', url: `${P}/follows`, key: keys[i]!, body: { user_id: keys[i]!.user_id, followable_type: 'Page', followable_id: pick(allPageIds) } };
    }
    case 'mixed':
      if (Math.random() < 0.1) {
        const i = 1 + Math.floor(Math.random() * 3);
        return { method: 'POST', url: `${P}/follows`, key: keys[i]!, body: { user_id: keys[i]!.user_id, followable_type: 'Page', followable_id: pick(allPageIds) } };
      }
      return varied(key);
    default:
      return varied(key);
  }
};
// The CPU and count of each answer's status (one request at a time only: with several in flight they overlap).
const byStatus = new Map<number, { n: number; us: number; statements: number }>();
// The wall time of each request, by method (with several in flight: how long reads wait behind writes).
const waits: Record<string, number[]> = { GET: [], POST: [] };
// The bytes of the answers' bodies (what a list's records cost the socket and the client).
let bytes = 0;
const one = async () => {
  const r = next();
  const c0 = process.cpuUsage();
  const s0 = statements;
  const w0 = performance.now();
  const res = await app.inject({
    method: r.method,
    url: r.url,
    headers: { 'api-key': r.key.api_key, 'api-secret': r.key.api_secret, ...(r.body ? { 'content-type': 'application/json' } : {}) },
    payload: r.body ? JSON.stringify(r.body) : undefined,
  });
  const c = process.cpuUsage(c0);
  bytes += res.rawPayload.length;
  waits[r.method]!.push(performance.now() - w0);
  const seen = byStatus.get(res.statusCode) ?? { n: 0, us: 0, statements: 0 };
  seen.n++;
  seen.statements += statements - s0;
  seen.us += c.user + c.system;
  byStatus.set(res.statusCode, seen);
  if (res.statusCode >= 500 || (res.statusCode >= 400 && mix !== 'mixed' && mix !== 'follow')) throw new Error(`${r.url}: ${res.statusCode} ${res.body}`);
  // A turn of the event loop after each answer, as a server's socket reads give it: `inject` answers through
  // promises alone, so without it every request ran in one turn, and the callbacks each one left for the check
  // phase (light-my-request's, the store's) waited to its end, holding every request's objects meanwhile (at
  // 5,000 requests, 115 MB of them: GC then cost twice as much as a server's).
  await new Promise<void>((ok) => setImmediate(ok));
};
for (let i = 0; i < Math.min(200, count); i++) await one(); // warm-up (and every key verified once)
// BENCH_PROFILE=FILE: a CPU profile of the measured requests alone (not the start, the store's read-through or the
// warm-up, which `--cpu-prof` includes), written as FILE.cpuprofile.
const profiler = process.env.BENCH_PROFILE ? new (await import('node:inspector/promises')).Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
const cpu0 = process.cpuUsage();
byStatus.clear();
waits.GET = [];
waits.POST = [];
statements = 0;
skips = 0;
bytes = 0;
const t0 = performance.now();
// BENCH_CONCURRENCY requests in flight at once (as many connections would).
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 1);
let left = count;
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (left-- > 0) await one();
}));
const cpu = process.cpuUsage(cpu0);
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(`${process.env.BENCH_PROFILE}.cpuprofile`, JSON.stringify(profile));
  profiler.disconnect();
}
console.log(
  `${mix}: ${count} requests, ${((cpu.user + cpu.system) / count).toFixed(0)} µs CPU each, ${(((performance.now() - t0) * 1000) / count).toFixed(0)} µs wall, ${(bytes / count).toFixed(0)} bytes an answer`,
);
if (concurrency === 1 && (mix === 'follow' || mix === 'mixed'))
  console.log(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, { n, us, statements: k }]) => `${status}: ${n} × ${(us / n).toFixed(0)} µs${process.env.BENCH_STATEMENTS === '1' ? ` ${(k / n).toFixed(1)} statements` : ''}`).join(', '),
  );
if (concurrency > 1) {
  const at = (list: number[], q: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))]!.toFixed(1);
  console.log(
    Object.entries(waits)
      .filter(([, list]) => list.length)
      .map(([method, list]) => `${method} ${list.length}: p50 ${at(list, 0.5)} ms, p99 ${at(list, 0.99)} ms, max ${at(list, 1)} ms`)
      .join('; '),
  );
}
if (process.env.BENCH_STATEMENTS === '1')
  console.log(`${(statements / count).toFixed(2)} statements per request, ${(skips / count).toFixed(3)} of them skips to a page number`);
if (process.env.BENCH_HEAPSNAPSHOT) {
  (globalThis as { gc?: () => void }).gc?.();
  console.log(`heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB; snapshot ${(await import('node:v8')).writeHeapSnapshot(process.env.BENCH_HEAPSNAPSHOT)}`);
}
await app.close();
await store.close();
