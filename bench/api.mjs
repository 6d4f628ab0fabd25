#!/usr/bin/env node
// Benchmark of the API and of the CLI's cold start (issue 2). Run by hand: `npm run bench` (after a build).
// Never part of the test suite. Everything runs on loopback, in a temp dir that is removed at the end.
//
// 1. starts the real server (`agora serve --port 0`) on a temp db with a known bootstrap key pair;
// 2. seeds 10,000 pages straight into the SQLite file (with the creator's follow of each, as POST /pages does);
// 3. starts a bare node:http server answering a fixed 25-item list of the same shape (in its own process,
//    this same script with `--bare`, so that it does not share an event loop with autocannon, as agora does not);
// 4. runs autocannon on GET /public-api/v1/pages?per_page=25 as the admin, as a Member, and on the bare server;
// 5. times the CLI's cold start against `node -e 0`;
// 6. prints a summary with PASS/FAIL per target (exit code 1 when a target fails).
//
// Options (env): BENCH_DURATION seconds per run (default 10), BENCH_CONNECTIONS (default 50),
// BENCH_PAGES (default 10000), BENCH_COLD_RUNS (default 15), BENCH_SERVER_NODE_ARGS extra node flags for
// `agora serve`, space-separated (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server).

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'agora.js');
const PREFIX = '/public-api/v1';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PAGES = Number(process.env.BENCH_PAGES ?? 10_000);
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
const PER_PAGE = 25;

const TARGETS = { ratio: 0.3, p99Ms: 20, rssMb: 200, versionX: 2, pagesListX: 3 };

const hex32 = () => randomBytes(16).toString('hex');

/** A page record as the API shows it (toPageRecord). */
function pageLike(i, configId, userId, now) {
  return {
    id: hex32(),
    name: `Bench page ${i}`,
    slug: `bench-page-${i}`,
    description: i % 3 === 0 ? null : `A page for the benchmark, number ${i}, with a short description.`,
    privacy: i % 10 === 8 ? 'private' : i % 10 === 9 ? 'secret' : 'public',
    page_configuration_id: configId,
    user_id: userId,
    created_at: now,
    updated_at: now,
  };
}

// ---------------------------------------------------------------- the bare server (child mode)

function bareServer() {
  const now = new Date().toISOString();
  const configId = hex32();
  const userId = hex32();
  const body = JSON.stringify({
    items: Array.from({ length: PER_PAGE }, (_, i) => pageLike(i, configId, userId, now)),
    total_items: PAGES,
  });
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
  // Never outlive the bench: stop when its stdout pipe breaks, and after 10 minutes in any case.
  process.stdout.on('error', () => process.exit(0));
  setTimeout(() => process.exit(0), 10 * 60_000).unref();
}

// ---------------------------------------------------------------- helpers

/** Spawns a process and waits for its `listening on http://HOST:PORT` line. */
function startListening(command, args, env, label) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
    if (stderr.length > 20_000) stderr = stderr.slice(-20_000);
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`${label} did not print its listening line within 30 s`)), 30_000);
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${label} stderr:\n${stderr}`));
    };
    child.on('exit', (code, signal) => fail(new Error(`${label} exited early (code ${code}, signal ${signal})`)));
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolvePromise({ child, url: m[1], stderr: () => stderr });
      }
    });
  });
}

function stop(child, timeoutMs = 10_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child?.exitCode ?? null);
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise(code ?? signal);
    });
    child.kill('SIGTERM');
  });
}

async function api(base, method, path, headers, body) {
  const res = await fetch(base + PREFIX + path, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return json;
}

/** CPU time (user + system) a process has used, in ms (from /proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function rssMb(pid, field = 'VmRSS') {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function cannon(autocannon, label, url, headers, duration) {
  const result = await autocannon({
    url,
    headers,
    connections: CONNECTIONS,
    duration,
    timeout: 10,
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0 || result['2xx'] === 0)
    throw new Error(
      `${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `out of ${result.requests.total} requests — the run is not valid`,
    );
  return {
    label,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    total: result.requests.total,
  };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Median wall time in ms of `node ...args` over COLD_RUNS runs (after one unmeasured run for the disk cache). */
function coldStart(label, args, env) {
  const once = () => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${label} exited ${r.status ?? r.signal}: ${r.stderr}`);
    return ms;
  };
  once();
  const times = Array.from({ length: COLD_RUNS }, once);
  return { label, median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

// ---------------------------------------------------------------- the bench

async function runBench() {
  const [{ default: autocannon }, { default: Database }] = await Promise.all([
    import('autocannon'),
    import('better-sqlite3'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'agora-bench-'));
  const db = join(dir, 'bench.db');
  const adminHeaders = { 'Api-Key': `ak_bench_${hex32()}`, 'Api-Secret': `as_bench_${randomBytes(24).toString('base64url')}` };
  const baseEnv = { ...process.env, HOME: dir, NO_COLOR: '1' };
  for (const k of ['AGORA_URL', 'AGORA_PROFILE', 'AGORA_API_KEY', 'AGORA_API_SECRET', 'AGORA_HOST', 'AGORA_PORT', 'AGORA_DB'])
    delete baseEnv[k];
  let agora;
  let bare;
  const onSignal = () => {
    agora?.child.kill('SIGKILL');
    bare?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', onSignal);

  try {
    console.log(`load before: ${readFileSync('/proc/loadavg', 'utf8').trim()}  (cores: ${(await import('node:os')).availableParallelism()})`);
    agora = await startListening(
      process.execPath,
      [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--db', db],
      {
        ...baseEnv,
        AGORA_BOOTSTRAP_API_KEY: adminHeaders['Api-Key'],
        AGORA_BOOTSTRAP_API_SECRET: adminHeaders['Api-Secret'],
      },
      'agora serve',
    );
    console.log(`agora: ${agora.url} (pid ${agora.child.pid})`);

    // ---- seed straight into the store (the schema exists now)
    const t0 = performance.now();
    const sqlite = new Database(db);
    sqlite.pragma('busy_timeout = 10000');
    const admin = sqlite.prepare(`SELECT id FROM users WHERE nickname = 'admin'`).get();
    if (!admin) throw new Error('no admin user: the bootstrap pair did not create it');
    const now = new Date().toISOString();
    const configId = hex32();
    const insertPage = sqlite.prepare(
      `INSERT INTO pages (id, name, slug, description, privacy, page_configuration_id, user_id, created_at, updated_at)
       VALUES (@id, @name, @slug, @description, @privacy, @page_configuration_id, @user_id, @created_at, @updated_at)`,
    );
    // The creator follows each page, as `POST /pages` does.
    const insertFollow = sqlite.prepare(
      `INSERT INTO follows (id, user_id, followable_type, followable_id, created_at) VALUES (?, ?, 'Page', ?, ?)`,
    );
    const privacies = { public: 0, private: 0, secret: 0 };
    sqlite.transaction(() => {
      sqlite
        .prepare(`INSERT INTO page_configurations (id, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`)
        .run(configId, 'Bench', 'Pages for the benchmark', now, now);
      for (let i = 0; i < PAGES; i++) {
        const page = pageLike(i, configId, admin.id, now);
        privacies[page.privacy]++;
        insertPage.run(page);
        insertFollow.run(hex32(), admin.id, page.id, now);
      }
    })();
    sqlite.close();
    console.log(
      `seeded ${PAGES} pages (${privacies.public} public, ${privacies.private} private, ${privacies.secret} secret) ` +
        `in ${fmt(performance.now() - t0, 0)} ms`,
    );

    // ---- a Member and their key
    const member = await api(agora.url, 'POST', '/users', adminHeaders, {
      first_name: 'Bench',
      last_name: 'Member',
      nickname: 'bench_member',
      email: 'bench.member@example.org',
      password: 'bench-password-1',
      accept_conditions: true,
      accept_confidentiality: true,
    });
    const keyRun = spawnSync(process.execPath, [BIN, 'admin', 'create-key', '--db', db, '--user', member.id, '--json'], {
      cwd: ROOT,
      env: baseEnv,
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (keyRun.status !== 0) throw new Error(`admin create-key failed: ${keyRun.stderr}`);
    const memberKey = JSON.parse(keyRun.stdout);
    const memberHeaders = { 'Api-Key': memberKey.api_key, 'Api-Secret': memberKey.api_secret };

    // ---- sanity: the list is what we think it is
    const path = `/pages?per_page=${PER_PAGE}`;
    const adminList = await api(agora.url, 'GET', path, adminHeaders);
    const memberList = await api(agora.url, 'GET', path, memberHeaders);
    if (adminList.items.length !== PER_PAGE || adminList.total_items !== PAGES)
      throw new Error(`admin list: ${adminList.items.length} items, total ${adminList.total_items}`);
    if (memberList.items.length !== PER_PAGE || memberList.total_items !== PAGES - privacies.secret)
      throw new Error(`member list: ${memberList.items.length} items, total ${memberList.total_items}`);
    console.log(`admin sees ${adminList.total_items} pages, the Member ${memberList.total_items}`);

    bare = await startListening(process.execPath, [fileURLToPath(import.meta.url), '--bare'], baseEnv, 'bare server');
    console.log(`bare: ${bare.url} (pid ${bare.child.pid})`);

    // ---- throughput (each after a short warm-up: JIT, and the first request's scrypt)
    const runs = [];
    for (const [label, url, headers] of [
      ['agora (admin)', agora.url + PREFIX + path, adminHeaders],
      ['agora (member)', agora.url + PREFIX + path, memberHeaders],
      ['bare node:http', bare.url + PREFIX + path, {}],
    ]) {
      const pid = label.startsWith('agora') ? agora.child.pid : bare.child.pid;
      await cannon(autocannon, `${label} warm-up`, url, headers, 2);
      const cpu0 = cpuMs(pid);
      const r = await cannon(autocannon, label, url, headers, DURATION);
      // CPU per request is less sensitive than req/s to other processes competing for the cores.
      r.cpuUsPerReq = ((cpuMs(pid) - cpu0) * 1000) / r.total;
      r.rss = rssMb(pid);
      runs.push(r);
      console.log(
        `${label.padEnd(16)} ${fmt(r.reqPerSec, 0).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ` +
          `max ${r.max} ms  (${r.total} requests)  server CPU ${fmt(r.cpuUsPerReq, 0)} µs/req  RSS ${fmt(r.rss)} MB`,
      );
    }

    const [adminRun, memberRun, bareRun] = runs;

    // ---- cold start
    const cliEnv = {
      ...baseEnv,
      AGORA_URL: agora.url,
      AGORA_API_KEY: adminHeaders['Api-Key'],
      AGORA_API_SECRET: adminHeaders['Api-Secret'],
    };
    const nodeBase = coldStart('node -e 0', ['-e', '0'], baseEnv);
    const version = coldStart('agora --version', [BIN, '--version'], baseEnv);
    const pagesList = coldStart('agora pages list', [BIN, 'pages', 'list'], cliEnv);
    for (const c of [nodeBase, version, pagesList])
      console.log(`${c.label.padEnd(18)} median ${fmt(c.median)} ms  (min ${fmt(c.min)}, max ${fmt(c.max)}, ${COLD_RUNS} runs)`);

    // The larger of the readings taken right after each agora run (GC may shrink it later).
    const finalRss = Math.max(adminRun.rss, memberRun.rss);
    const peakRss = rssMb(agora.child.pid, 'VmHWM');

    // ---- summary
    const rows = [
      ['agora/bare req/s (admin)', fmt(adminRun.reqPerSec / bareRun.reqPerSec, 2), `>= ${TARGETS.ratio}`, adminRun.reqPerSec / bareRun.reqPerSec >= TARGETS.ratio],
      ['agora/bare req/s (member)', fmt(memberRun.reqPerSec / bareRun.reqPerSec, 2), `>= ${TARGETS.ratio}`, memberRun.reqPerSec / bareRun.reqPerSec >= TARGETS.ratio],
      ['p99 ms (admin)', String(adminRun.p99), `< ${TARGETS.p99Ms}`, adminRun.p99 < TARGETS.p99Ms],
      ['p99 ms (member)', String(memberRun.p99), `< ${TARGETS.p99Ms}`, memberRun.p99 < TARGETS.p99Ms],
      ['server RSS MB', fmt(finalRss), `< ${TARGETS.rssMb}`, finalRss < TARGETS.rssMb],
      ['--version / node -e 0', fmt(version.median / nodeBase.median, 2), `< ${TARGETS.versionX}`, version.median / nodeBase.median < TARGETS.versionX],
      ['pages list / node -e 0', fmt(pagesList.median / nodeBase.median, 2), `< ${TARGETS.pagesListX}`, pagesList.median / nodeBase.median < TARGETS.pagesListX],
    ];
    console.log('');
    console.log(`${CONNECTIONS} connections, ${DURATION} s per run, ${PAGES} pages, GET ${PREFIX}${path}`);
    console.log('run               req/s   p50 ms  p99 ms  max ms  server CPU µs/req');
    for (const r of runs)
      console.log(
        `${r.label.padEnd(16)} ${fmt(r.reqPerSec, 0).padStart(6)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ` +
          `${String(r.max).padStart(7)}  ${fmt(r.cpuUsPerReq, 0).padStart(8)}`,
      );
    console.log(
      `(server CPU µs/req is less sensitive to other load than req/s; the bare server's req/s is mostly bounded ` +
        `by autocannon itself, sharing the same cores)`,
    );
    console.log(`agora RSS after the runs: ${fmt(finalRss)} MB (peak VmHWM ${fmt(peakRss)} MB)`);
    console.log(`cold start (ms, median): node -e 0 ${fmt(nodeBase.median)}, --version ${fmt(version.median)}, pages list ${fmt(pagesList.median)}`);
    console.log('');
    console.log('target                      value    goal     result');
    for (const [name, value, goal, ok] of rows)
      console.log(`${name.padEnd(27)} ${value.padStart(6)}   ${goal.padEnd(7)}  ${ok ? 'PASS' : 'FAIL'}`);
    console.log(`load after: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    if (rows.some((r) => !r[3])) process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSignal);
    const bareExit = await stop(bare?.child);
    const agoraExit = await stop(agora?.child);
    if (agora && agoraExit !== 0) console.error(`agora serve exited with ${agoraExit} after SIGTERM\n${agora.stderr()}`);
    if (bare && bareExit !== 0) console.error(`bare server exited with ${bareExit}`);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--bare') bareServer();
else await runBench();
