#!/usr/bin/env node
// The read-path benchmark of issue 29 ("Bounds"). Run by hand after a build, never by the tests:
//   npm run build && npm run bench:read-path
//   BENCH_DURATION=10 npm run bench:read-path                      # longer runs
//   BENCH_PAGES=10000,1000000 npm run bench:read-path              # and SQLite at a million pages
// Everything runs on loopback, in a temp dir removed at the end; the PostgreSQL database it creates on BENCH_PG_URL
// (default postgres://postgres@127.0.0.1:5432/postgres, trust auth) is dropped at the end, even on failure or ^C.
//
// For the first size of BENCH_PAGES (default 10000): seeds the community of realistic.mjs (seed.mjs: pages with
// their creators' follows, users, Members' follows, events, notifications; straight into SQLite, then recounted),
// copies it into PostgreSQL (`agora admin copy`) before any run writes, and measures five traffic classes, each
// on its own, on `agora serve` on SQLite, then on PostgreSQL, each just after its floor (floor-server.mjs: a bare
// Fastify + better-sqlite3 or pg server answering the same `GET /pages` first page on the same database, checked to
// answer as agora does, running beside agora and measured again before each class: a figure is judged against a
// floor measured seconds before it; SQLite's bounds are in µs, its floor printed as a yardstick of the machine):
//   first    first page of a list: pages by privacy, users, a page's follows, current events (Admin and Members),
//            a Member's own notifications; one of the five at random each request;
//   pages    GET /pages first page, random privacy filter or none, 4 callers (the Admin and three Members);
//            the same requests go to the floor;
//   cursors  following `Link` cursors deep in the pages list: each connection follows the Link of its last answer,
//            starting (and starting again at the list's end) from pages spread over the whole list;
//   numbers  GET /pages?page=N, N random in 1–400, 4 callers;
//   mixed    90 % the `first` requests + 10 % follows (a Member follows a random public page; 409 for a page
//            already followed is an expected answer); last, since it writes;
//   follows  the mix's follows alone, only when BENCH_CLASSES names it (no bound: what a write costs);
//   stream, statuses  a Member's stream and GET /statuses, first pages, only when BENCH_CLASSES names them and
//            BENCH_STATUSES=N seeds N statuses a page (no bound: lists whose cost the classes above do not show).
// BENCH_ROUNDS=N (default 1): all of it N times, the table giving each figure's median round (by its multiple of its floor).
// Each run: 1 s warm-up, then BENCH_DURATION seconds (default 5), BENCH_CONNECTIONS connections (default 50). CPU
// per request is from /proc: the server process (and its children) plus, on PostgreSQL, every backend of the run's
// database (matched by the database name in their process title), so the floor and agora pay for the same things.
// Later sizes of BENCH_PAGES measure SQLite alone (the issue bounds a million pages on SQLite only: first pages and
// cursors within 1.5× the first size's figures, p99 under 20 ms).
// Prints a table (Markdown) with the issue's bound beside each figure and whether it is met; PostgreSQL's bounds
// are multiples of the floor's GET /pages figure (CPU µs a request, server + backends), as in the issue.
// Env: BENCH_DURATION, BENCH_ROUNDS, BENCH_WARM (s of warm-up before the first class, default 8), BENCH_CONNECTIONS,
// BENCH_PAGES, BENCH_ENGINES (sqlite,pg), BENCH_CLASSES (a subset of first,pages,cursors,numbers,mixed,follows,stream,
// statuses), BENCH_STATUSES, BENCH_KINDS=1 (each list of `first` measured apart too, printed only),
// BENCH_FIRST (the lists `first` picks from, e.g. `users,events`: to profile one),
// BENCH_PG_URL, BENCH_NODE_ARGS (node flags of agora serve, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
// CPU figures are steadier than req/s on a busy machine, but still inflated by it: give the load (printed before
// each run) with the figures.

import { mkdtempSync, rmSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, dropPgDatabases, fmt, loadavg, measure, pgAdmin, pgUrl, pick, PREFIX, rand, ROOT, startListening, stop, warm } from './harness.mjs';
import { benchEnv, copyToPg, followRequest, seed } from './seed.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SIZES = (process.env.BENCH_PAGES ?? '10000').split(',').map(Number);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,pg').split(',').map((x) => x.trim());
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const WARM = Number(process.env.BENCH_WARM ?? 8);
/** The row of the median figure by `by` (of an even number, the lower middle). */
const median = (rows, by) => [...rows].sort((a, b) => by(a) - by(b))[Math.floor((rows.length - 1) / 2)];
for (const e of ENGINES) if (e !== 'sqlite' && e !== 'pg') throw new Error(`BENCH_ENGINES: unknown engine ${e} (sqlite, pg)`);
if (SIZES.length > 1 && !ENGINES.includes('sqlite')) throw new Error('BENCH_PAGES: larger sizes are measured on SQLite, against its figures at the first size');

/** The traffic classes and the issue's bounds: SQLite in µs a request, PostgreSQL in µs or a multiple of the floor. */
const CLASSES = [
  { name: 'first', label: 'first page of a list', sqlite: 110, pg: { floor: 1.5 }, large: true },
  { name: 'pages', label: 'GET /pages first page, random privacy, 4 callers', sqlite: 110, pg: { floor: 1.3 }, large: true },
  { name: 'cursors', label: 'following Link cursors deep in the pages list', sqlite: 110, pg: { floor: 1.5 }, large: true },
  { name: 'numbers', label: 'random page number 1–400', sqlite: 400, pg: { us: 1000 } },
  { name: 'mixed', label: '90 % first pages + 10 % follows', sqlite: 160, pg: { floor: 2 }, writes: true },
  // Not a bound: what one of the mix's writes costs alone. Measured only when BENCH_CLASSES names it.
  { name: 'follows', label: 'follows alone (no bound)', writes: true, byName: true },
  // Not bounds either, and only with statuses seeded (BENCH_STATUSES per page): a Member's stream (their ~100 pages,
  // 20 pages and 5 users followed: one walk each) and GET /statuses, first pages, the Admin and three Members.
  { name: 'stream', label: "a Member's stream, first page (no bound)", byName: true },
  { name: 'statuses', label: 'GET /statuses first page (no bound)', byName: true },
].filter((c) => (process.env.BENCH_CLASSES ? process.env.BENCH_CLASSES.split(',').includes(c.name) : !c.byName));

const { request } = await import('undici');
const PRIVACY = ['', '?privacy=public', '?privacy=private', '?privacy=secret'];

async function getJson(base, path, headers) {
  const res = await request(`${base}${path}`, { headers });
  const body = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${JSON.stringify(body)}`);
  return { body, link: res.headers.link };
}
/** The requests of the `pages` class (and of the floor): a first page, a random privacy filter or none, 4 callers. */
const pagesFirstOf = (s) => {
  const callers = [s.admin, ...s.members];
  return () => ({ method: 'GET', path: `${PREFIX}/pages${pick(PRIVACY)}`, headers: pick(callers) });
};
const linkPath = (link) => (typeof link === 'string' ? /^<([^>]+)>/.exec(link)?.[1] : undefined);

/** The requests of each class against one agora server (`base`); `s` is the seeded community. */
async function traffic(s, base) {
  const callers = [s.admin, ...s.members];
  const publicPages = s.pageIds.filter((_, i) => i % 10 < 8); // seed.mjs: i % 10 is 8 private, 9 secret
  const kinds = {
    pages: () => ({ path: `${PREFIX}/pages${pick(PRIVACY)}`, headers: pick(callers) }),
    users: () => ({ path: `${PREFIX}/users`, headers: pick(callers) }),
    follows: () => ({ path: `${PREFIX}/follows?followable_type=Page&followable_id=${pick(publicPages)}`, headers: pick(callers) }),
    events: () => ({ path: `${PREFIX}/events?event_date=current_and_coming`, headers: pick(callers) }),
    notifications: () => {
      const i = Math.floor(Math.random() * s.members.length);
      return { path: `${PREFIX}/users/${s.memberIds[i]}/notifications`, headers: s.members[i] };
    },
  };
  // BENCH_FIRST=users,events: the first class made of those lists only (to profile one).
  const only = process.env.BENCH_FIRST?.split(',');
  const firsts = Object.entries(kinds).filter(([name]) => !only || only.includes(name)).map(([, kind]) => kind);
  // Each kind answers 200 before anything is measured.
  for (const kind of firsts)
    for (let k = 0; k < 8; k++) {
      const r = kind();
      await getJson(base, r.path, r.headers);
    }
  const first = () => ({ method: 'GET', ...pick(firsts)() });

  // Where chains of cursors start: the Link of 25 page numbers spread over each caller's whole list.
  const starts = [];
  for (const headers of callers) {
    const last = Math.ceil((await getJson(base, `${PREFIX}/pages`, headers)).body.total_items / 25);
    for (let k = 0; k < 25; k++) {
      const path = linkPath((await getJson(base, `${PREFIX}/pages?page=${1 + Math.floor(((k + 0.5) * last) / 25)}`, headers)).link);
      if (path) starts.push({ path, headers });
    }
  }
  if (!starts.length) throw new Error('no Link cursor in the pages list: too few pages?');
  // A connection's next request is the Link of its own last answer: autocannon calls onResponse and then, at
  // once, setupRequest of the same connection, so the entry pushed last is that connection's.
  const next = [];
  const cursors = [
    {
      setupRequest: (req, context) => {
        const at = next.pop() ?? pick(starts);
        context.headers = at.headers;
        return { ...req, method: 'GET', path: at.path, headers: at.headers };
      },
      onResponse: (_status, _body, context, headers) => {
        const path = linkPath(headers.link ?? headers.Link);
        if (path) next.push({ path, headers: context.headers });
      },
    },
  ];
  const numbers = () => ({ method: 'GET', path: `${PREFIX}/pages?page=${rand(400)}`, headers: pick(callers) });
  const mixed = () => (Math.random() < 0.1 ? followRequest(s, publicPages) : first());
  const each = (make) => [{ setupRequest: (req) => ({ ...req, ...make() }) }];
  const apart = Object.entries(kinds).map(([name, make]) => [`first/${name}`, each(() => ({ method: 'GET', ...make() }))]);
  const follows = () => followRequest(s, publicPages);
  const stream = () => {
    const i = Math.floor(Math.random() * s.members.length);
    return { method: 'GET', path: `${PREFIX}/users/${s.memberIds[i]}/stream`, headers: s.members[i] };
  };
  const statuses = () => ({ method: 'GET', path: `${PREFIX}/statuses`, headers: pick(callers) });
  return {
    first: each(first),
    pages: each(pagesFirstOf(s)),
    cursors,
    numbers: each(numbers),
    mixed: each(mixed),
    follows: each(follows),
    stream: each(stream),
    statuses: each(statuses),
    kinds: apart,
  };
}

/** The floor answers the `pages` class as agora does: the same body and Link, each caller and privacy filter. */
async function sameAnswers(s, agoraUrl, floorUrl) {
  const differ = [];
  for (const [i, headers] of [s.admin, ...s.members].entries())
    for (const filter of PRIVACY) {
      const path = `${PREFIX}/pages${filter}`;
      const [a, f] = await Promise.all([getJson(agoraUrl, path, headers), getJson(floorUrl, path, headers)]);
      if (!isDeepStrictEqual(a.body, f.body) || a.link !== f.link) differ.push(`${path} as ${i ? `Member ${i}` : 'the Admin'}`);
    }
  if (differ.length) console.log(`WARNING: the floor does not answer as agora does (${differ.join(', ')}): its figures compare different work`);
  else console.log('the floor answers GET /pages as agora does (body and Link), for the 4 callers × 4 privacy filters');
  return differ.length === 0;
}

const opts = (c) => ({ connections: CONNECTIONS, duration: DURATION, expectedNon2xx: !!c.writes });
const header = (what) => console.log(`\n== ${what}, ${CONNECTIONS} connections, ${DURATION} s a run; load ${loadavg()}`);

/**
 * Each class on one agora server, its rows by class name. With `floor` (a floor server on the same store, running
 * beside it), the floor's `GET /pages` is measured again just before each class: each figure is judged against a
 * floor measured seconds from it (`x.floor`), as the host's speed drifts by a third within minutes.
 */
async function measureAgora(s, label, where, env, database, file, floor) {
  const server = await startListening([BIN, 'serve', '--port', '0', '--db', where], env, `agora serve (${label})`, NODE_ARGS);
  try {
    const target = { urls: [server.url], pids: [server.child.pid], database, file };
    const floorTarget = floor && { urls: [floor.url], pids: [floor.child.pid], database };
    const same = floor ? await sameAnswers(s, server.url, floor.url) : undefined;
    const requests = await traffic(s, server.url);
    const pagesFirst = pagesFirstOf(s);
    const floorRequests = [{ setupRequest: (req) => ({ ...req, ...pagesFirst() }) }];
    header(label);
    // Every class's reads once before any is measured, 8 s in all (BENCH_WARM): the first measured would otherwise
    // pay for the JIT of code paths the others find hot. A server runs for hours; the first class measured alone
    // after 2 s cost about 20 % more on PostgreSQL than after 8 or 10 s, where it settles.
    const reads = CLASSES.filter((c) => !c.writes);
    for (const c of reads) await warm(target, requests[c.name], { connections: CONNECTIONS, duration: Math.max(1, WARM / reads.length) });
    if (floorTarget) await warm(floorTarget, floorRequests, { connections: CONNECTIONS, duration: 2 });
    const rows = {};
    for (const c of CLASSES) {
      const floorRow = floorTarget && (await measure(`floor: GET /pages first page`, floorTarget, floorRequests, opts({})));
      rows[c.name] = { ...(await measure(`${label}: ${c.name}`, target, requests[c.name], opts(c))), floor: floorRow, same };
      // BENCH_KINDS=1: each kind of list of the first class measured on its own as well (printed, not tabled).
      if (c.name === 'first' && process.env.BENCH_KINDS)
        for (const [name, kind] of requests.kinds) await measure(`${label}: ${name}`, target, kind, opts({}));
    }
    return rows;
  } finally {
    await stop(server.child);
  }
}

/** Each class beside the floor server (`bench/floor-server.mjs`) on the same store, measured in turn with it. */
async function measureBesideFloor(s, label, where, env, database, file) {
  const floor = await startListening([join(ROOT, 'bench', 'floor-server.mjs'), where], env, 'floor server');
  try {
    return await measureAgora(s, label, where, env, database, file, floor);
  } finally {
    await stop(floor.child);
  }
}

const us = (x) => `${fmt(x.cpu)} µs`;
const valid = (x) => (x.unexpected ? ` (${x.unexpected} errors: not valid)` : '');
const met = (ok, x) => `${ok ? 'yes' : '**no**'}${valid(x)}`;

/** A figure as a multiple of the floor measured just before it. */
const times = (x) => x.cpu / x.floor.cpu;

function printTable(results) {
  const sq = ENGINES.includes('sqlite');
  const pg = ENGINES.includes('pg');
  const cols = [...(sq ? ['SQLite req/s', 'p50/p99', 'CPU', 'bound', 'met'] : []), ...(pg ? ['PostgreSQL req/s', 'p50/p99', 'CPU (backends)', 'bound', 'met'] : [])];
  console.log(`\n| traffic | ${cols.join(' | ')} |\n|---|${cols.map(() => '---|').join('')}`);
  const cells = (x) => [fmt(x.rps), `${x.p50}/${x.p99} ms`];
  const ofFloor = (x) => `${fmt(times(x), 2)}× its floor, ${fmt(x.floor.cpu)} µs`;
  for (const c of CLASSES) {
    const row = [];
    if (sq) {
      const x = results.sqlite[c.name];
      const bound = c.sqlite === undefined ? ['', ''] : [`≤ ${c.sqlite} µs`, met(x.cpu <= c.sqlite, x)];
      row.push(...cells(x), `${us(x)} (${ofFloor(x)})`, ...bound);
    }
    if (pg) {
      const x = results.pg[c.name];
      const bound = c.pg === undefined ? ['', ''] : c.pg.us ? [`≤ ${c.pg.us} µs`, met(x.cpu <= c.pg.us, x)] : [`≤ ${c.pg.floor}× floor`, met(times(x) <= c.pg.floor, x)];
      row.push(...cells(x), `${us(x)} (${fmt(x.cpuDb)}; ${ofFloor(x)})`, ...bound);
    }
    console.log(`| ${c.label} | ${row.join(' | ')} |`);
  }
  for (const [engine, name] of [['sqlite', 'Fastify + better-sqlite3'], ['pg', 'Fastify + pg']]) {
    const rows = results[engine] && Object.values(results[engine]);
    if (!rows) continue;
    const floors = rows.map((x) => x.floor.cpu).sort((a, b) => a - b);
    const same = rows.every((x) => x.same);
    console.log(
      `floor (${name}), GET /pages first page, measured before each class: ${fmt(floors[0])}–${fmt(floors.at(-1))} µs a request; ` +
        `${same ? 'answers as agora' : '**answers differ from agora**'}`,
    );
  }
}

/** A larger size on SQLite against the first: first pages and cursors within 1.5×, p99 under 20 ms. */
function printLarge(pages, rows, reference) {
  console.log(`\n| SQLite, ${pages.toLocaleString('en')} pages | req/s | p50/p99 | CPU | vs ${SIZES[0].toLocaleString('en')} pages | met |\n|---|---|---|---|---|---|`);
  for (const c of CLASSES) {
    const x = rows[c.name];
    const ratio = x.cpu / reference[c.name].cpu;
    const ok = x.p99 < 20 && (!c.large || ratio <= 1.5);
    const bound = `${fmt(ratio, 2)}×${c.large ? ' (≤ 1.5×)' : ''}, p99 < 20 ms`;
    console.log(`| ${c.label} | ${fmt(x.rps)} | ${x.p50}/${x.p99} ms | ${us(x)} | ${bound} | ${met(ok, x)} |`);
  }
}

async function benchSize(pages, first) {
  const dir = mkdtempSync(join(tmpdir(), 'agora-read-path-'));
  const db = join(dir, 'bench.db');
  const env = benchEnv(dir);
  try {
    const s = await seed(db, pages, env);
    const database = `agora_read_path_${process.pid}`;
    const engines = first ? ENGINES : ['sqlite'];
    // Copied before any run writes to the seeded file.
    if (engines.includes('pg')) await copyToPg(db, database, env);
    // Each round measures every class beside its floor; the table takes each figure's median round (by its multiple of
    // its floor on the first size, by its µs on larger ones).
    const rounds = { sqlite: [], pg: [] };
    const label = (engine) => `${pages.toLocaleString('en')} pages, ${engine}`;
    for (let round = 1; round <= ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`\n== round ${round} of ${ROUNDS}`);
      if (engines.includes('sqlite'))
        rounds.sqlite.push(first ? await measureBesideFloor(s, label('SQLite'), db, env, undefined, db) : await measureAgora(s, label('SQLite'), db, env, undefined, db));
      if (engines.includes('pg')) {
        // Each round from the state of the first, whose database was just vacuumed: the rounds before wrote (the
        // mix's follows), and without a vacuum their dead rows slow every later round's reads (autovacuum may be
        // off, as on the machine of docs/performance.md, and would not have run in the minutes a round takes).
        if (round > 1) await pgAdmin('vacuum analyze', pgUrl(database));
        rounds.pg.push(await measureBesideFloor(s, label('PostgreSQL'), pgUrl(database), env, database));
      }
    }
    const results = {};
    for (const engine of engines)
      results[engine] = Object.fromEntries(CLASSES.map((c) => [c.name, median(rounds[engine].map((r) => r[c.name]), first ? times : (x) => x.cpu)]));
    return { results };
  } finally {
    await dropPgDatabases();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`load before: ${loadavg()}`);
const reference = await benchSize(SIZES[0], true);
const larger = [];
for (const pages of SIZES.slice(1)) larger.push([pages, (await benchSize(pages, false)).results.sqlite]);
console.log(`\nload after: ${loadavg()}; ${SIZES[0].toLocaleString('en')} pages, ${CONNECTIONS} connections, ${DURATION} s a run`);
console.log('CPU: µs a request, the server + on PostgreSQL its database backends (the backends alone in brackets)');
printTable(reference.results);
for (const [pages, rows] of larger) printLarge(pages, rows, reference.results.sqlite);
