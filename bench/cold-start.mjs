// Cold start of the CLI (issue 8), run by hand after a build: `node bench/cold-start.mjs` (COLD_RUNS, default 41).
// Starts the real server on a temp database, stores a profile with `agora login` (so `pages list` reads the
// credentials file through conf, as a user's run does), then times each command COLD_RUNS times, alternating
// them so that a change in the machine's load touches all alike, and prints the medians and their ratio to
// `node -e 0`. Targets: --version and --help < 2x, `pages list` (a table view, through a pipe) < 3x. With
// /usr/bin/time present it also prints each command's CPU time (user + system, children included): steadier
// than wall time when other work shares the cores. COLD_BASELINE=/path/to/other/bin/agora.js adds that build's
// `--version` and `pages list` to the same alternation (a before/after under the same load).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin/agora.js');
const RUNS = Number(process.env.COLD_RUNS ?? 41);
const dir = mkdtempSync(join(tmpdir(), 'agora-bench-cold-'));
const key = `ak_${randomBytes(8).toString('hex')}`;
const secret = `as_${randomBytes(16).toString('hex')}`;

function startServer() {
  const env = { ...process.env, AGORA_BOOTSTRAP_API_KEY: key, AGORA_BOOTSTRAP_API_SECRET: secret };
  const child = spawn(process.execPath, [BIN, 'serve', '--demo', '--port', '0', '--db', join(dir, 'a.db')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) ok({ child, url: m[1] });
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const { child, url } = await startServer();
const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') };
for (const name of ['AGORA_URL', 'AGORA_API_KEY', 'AGORA_API_SECRET', 'AGORA_PROFILE', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name];
try {
  const login = spawnSync(process.execPath, [BIN, 'login', '--url', url, '--api-key', key, '--api-secret', secret], { env, encoding: 'utf8' });
  if (login.status !== 0) throw new Error(`login failed: ${login.stderr}`);
  const commands = {
    'node -e 0': ['-e', '0'],
    '--version': [BIN, '--version'],
    '--help': [BIN, '--help'],
    'pages list': [BIN, 'pages', 'list'],
    'users list --json': [BIN, 'users', 'list', '--json'],
  };
  if (process.env.COLD_BASELINE) {
    commands['baseline --version'] = [process.env.COLD_BASELINE, '--version'];
    commands['baseline pages list'] = [process.env.COLD_BASELINE, 'pages', 'list'];
  }
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  const timed = existsSync('/usr/bin/time');
  const check = spawnSync(process.execPath, commands['pages list'], { env, encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`pages list failed: ${check.stderr}`);
  const load = loadavg()[0];
  for (let i = 0; i < RUNS; i++)
    for (const [name, args] of Object.entries(commands)) {
      const t = performance.now();
      const run = timed
        ? spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
        : spawnSync(process.execPath, args, { env, stdio: 'ignore' });
      times[name].push(performance.now() - t);
      if (timed) {
        const [user, system] = run.stderr.trim().split('\n').at(-1).split(' ').map(Number);
        cpu[name].push((user + system) * 1000);
      }
    }
  const base = median(times['node -e 0']);
  const targets = { '--version': 2, '--help': 2, 'pages list': 3, 'users list --json': 3, 'baseline --version': 2, 'baseline pages list': 3 };
  console.log(`cold start, median of ${RUNS} (load average ${load.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after):`);
  for (const [name, list] of Object.entries(times)) {
    const m = median(list);
    const ratio = name === 'node -e 0' ? '' : `  ${(m / base).toFixed(2)}x (target < ${targets[name]})`;
    const spent = timed ? `  cpu ${median(cpu[name]).toFixed(0).padStart(4)} ms (${(median(cpu[name]) / median(cpu['node -e 0'])).toFixed(2)}x)` : '';
    console.log(`  ${name.padEnd(20)} ${m.toFixed(1).padStart(7)} ms${ratio}${spent}`);
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((ok) => child.once('exit', ok));
  rmSync(dir, { recursive: true, force: true });
}
