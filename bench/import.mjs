// Benchmark of `agora users import` (issue 8). Run by hand, after a build: `node bench/import.mjs`
// (BENCH_USERS=10000 by default; BENCH_HASH_CONCURRENCY sets the server's AGORA_HASH_CONCURRENCY). It
// 1. measures the machine's raw async scrypt rate with the server's parameters (N=16384, r=8, p=1), 8 at a time,
//    before the import and again after it (the machine's load moves: the ratio is taken against their mean);
// 2. starts the real server on a temp database and imports BENCH_USERS users from NDJSON through the real CLI;
// 3. meanwhile reads GET /pages?per_page=25 in a loop and keeps each latency;
// 4. prints users/s against the raw scrypt rate (target >= 0.8) and the reads' p99 (target < 50 ms), with the
//    load average, since other work on the machine moves both.
// Cold starts are measured by bench/cold-start.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, scrypt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin/agora.js');
const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'agora-bench-import-'));
const key = `ak_${randomBytes(8).toString('hex')}`;
const secret = `as_${randomBytes(16).toString('hex')}`;
const RAW_HASHES = Number(process.env.BENCH_RAW_HASHES ?? 1000);

async function scryptRate(count) {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next++ < count)
      await new Promise((ok, fail) =>
        scrypt('secret123', randomBytes(16), 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (e) => (e ? fail(e) : ok())),
      );
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return count / ((performance.now() - started) / 1000);
}

function startServer() {
  const env = { ...process.env, AGORA_BOOTSTRAP_API_KEY: key, AGORA_BOOTSTRAP_API_SECRET: secret };
  if (process.env.BENCH_HASH_CONCURRENCY) env.AGORA_HASH_CONCURRENCY = process.env.BENCH_HASH_CONCURRENCY;
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', join(dir, 'a.db')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) ok({ child, url: m[1] });
    });
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const loadBefore = loadavg()[0];
const rawBefore = await scryptRate(RAW_HASHES);
const { child, url } = await startServer();
const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), AGORA_URL: url, AGORA_API_KEY: key, AGORA_API_SECRET: secret };
try {
  const lines = Array.from({ length: USERS }, (_, i) =>
    JSON.stringify({ first_name: 'Bench', last_name: `User ${i}`, nickname: `bench_${i}`, email: `bench${i}@example.org`, password: 'secret123', accept_conditions: true, accept_confidentiality: true }),
  );
  writeFileSync(join(dir, 'users.ndjson'), `${lines.join('\n')}\n`);

  let importing = true;
  const latencies = [];
  const reader = (async () => {
    while (importing) {
      const t = performance.now();
      const res = await fetch(`${url}/public-api/v1/pages?per_page=25`, { headers: { 'api-key': key, 'api-secret': secret } });
      await res.text();
      latencies.push(performance.now() - t);
      await new Promise((ok) => setTimeout(ok, 5));
    }
  })();
  const started = performance.now();
  // Spawned asynchronously: the reads above keep going while the import runs.
  const result = await new Promise((ok) => {
    const cli = spawn(process.execPath, [BIN, 'users', 'import', join(dir, 'users.ndjson'), '--concurrency', '16', '--json'], { env });
    let stdout = '';
    cli.stdout.on('data', (d) => (stdout += d));
    cli.on('close', () => ok({ stdout }));
  });
  const seconds = (performance.now() - started) / 1000;
  importing = false;
  await reader;
  const summary = JSON.parse(result.stdout);
  const loadDuring = loadavg()[0];
  const rawAfter = await scryptRate(RAW_HASHES);
  const raw = (rawBefore + rawAfter) / 2;
  const rate = summary.created / seconds;
  latencies.sort((a, b) => a - b);
  console.log(`${new Date().toISOString()}, ${availableParallelism()} cores, load average ${loadBefore.toFixed(1)} before, ${loadDuring.toFixed(1)} at the end of the import; server hash concurrency ${process.env.BENCH_HASH_CONCURRENCY ?? 'default'}`);
  console.log(`raw async scrypt: ${rawBefore.toFixed(1)} hashes/s before, ${rawAfter.toFixed(1)} after`);
  console.log(`import of ${USERS} users: ${seconds.toFixed(1)} s, ${rate.toFixed(1)} users/s (created ${summary.created}, failed ${summary.failed}); ratio ${(rate / raw).toFixed(2)} (target >= 0.8)`);
  console.log(`GET /pages meanwhile: ${latencies.length} reads, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (target < 50)`);

} finally {
  child.kill('SIGTERM');
  await new Promise((ok) => child.once('exit', ok));
  rmSync(dir, { recursive: true, force: true });
}
