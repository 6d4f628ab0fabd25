// `node scripts/check-install.mjs` (run by .ci/run): installs the package as a user gets it. It packs the tarball
// (`npm pack`), checks what it holds (a LICENSE, no source maps), installs it globally into an empty prefix, and
// checks that npm warned nothing, that `npm ls` finds every dependency valid, that `agora --version` answers and
// that `agora serve --demo` listens and answers. It takes minutes, not seconds: the install compiles
// better-sqlite3's addon (no prebuilt binary can be downloaded here), which is why it is not a vitest test.
// Prints `pack-install: passed` or `pack-install: failed` with the reasons, and exits 0 or 1.
//
// `--allow-scripts=better-sqlite3` is what a user passes too: npm 11 lists every package with install scripts that
// the user has not allowed, and better-sqlite3 compiles its addon at install. The tarball is allowed by its path
// because npm lists the `prepare` of a package installed from a tarball file, although it runs `prepare` only for
// git and linked packages (a registry install lists none).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const run = (command, args, options = {}) => {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', ...options });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
};

/** Starts `agora serve --demo` on a free port; resolves with its URL and demo key, or rejects after 60 s. */
const serveDemo = (agora, work) => {
  const child = spawn(agora, ['serve', '--demo', '--port', '0', '--db', join(work, 'demo.db')], {
    env: { ...process.env, HOME: work },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const started = new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "listening on" within 60 s: ${output}`)), 60_000);
    child.stdout.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const key = /api_key=(\S+) api_secret=(\S+)/.exec(output);
      if (url && key) {
        clearTimeout(timer);
        ok({ url, key: key[1], secret: key[2] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`serve exited with ${code}: ${output}`));
    });
  });
  const stop = () =>
    new Promise((ok) => {
      if (child.exitCode !== null || child.signalCode !== null) return ok(child.exitCode);
      child.once('exit', (code) => ok(code));
      child.kill('SIGTERM');
    });
  return { started, stop };
};

/** One whole check in a new folder: the problems it found (none when it passed). */
const check = async () => {
  const work = mkdtempSync(join(tmpdir(), 'agora-pack-'));
  const prefix = join(work, 'prefix');
  const problems = [];
  try {
    const pack = run('npm', ['pack', '--pack-destination', work]);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (pack.status !== 0 || !tarball) throw new Error(`npm pack failed:\n${pack.output}`);
    const files = run('tar', ['-tzf', join(work, tarball)]).output.split('\n');
    if (!files.includes('package/LICENSE')) problems.push('the tarball has no LICENSE');
    const maps = files.filter((name) => name.endsWith('.map'));
    if (maps.length) problems.push(`the tarball ships source maps: ${maps.join(', ')}`);

    const install = run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', `--allow-scripts=better-sqlite3,file:${join(work, tarball)}`, join(work, tarball)]);
    if (install.status !== 0) throw new Error(`npm install -g failed:\n${install.output}`);
    const warnings = install.output.split('\n').filter((line) => /^npm (warn|WARN|error|ERR)/.test(line));
    if (warnings.length) problems.push(`npm install -g warned:\n${warnings.join('\n')}`);
    console.log(`installed: ${/added \d+ packages?/.exec(install.output)?.[0] ?? install.output.trim()}`);

    const ls = run('npm', ['ls', '-g', '--prefix', prefix, '--all']);
    if (ls.status !== 0 || /invalid|missing|UNMET/.test(ls.output)) problems.push(`npm ls -g found problems:\n${ls.output}`);

    const agora = join(prefix, 'bin', 'agora');
    const answer = run(agora, ['--version']);
    if (answer.status !== 0 || answer.output.trim() !== version) problems.push(`agora --version answered ${answer.status}: ${answer.output}`);

    const server = serveDemo(agora, work);
    try {
      const { url, key, secret } = await server.started;
      const openapi = await fetch(`${url}/public-api/v1/openapi.json`);
      if (openapi.status !== 200) problems.push(`GET openapi.json answered ${openapi.status}`);
      const pages = await fetch(`${url}/public-api/v1/pages`, { headers: { 'Api-Key': key, 'Api-Secret': secret } });
      const body = await pages.json();
      if (pages.status !== 200 || !(body.total_items > 0)) problems.push(`GET /pages answered ${pages.status}: ${JSON.stringify(body)}`);
    } catch (error) {
      problems.push(`agora serve --demo: ${error.message}`);
    } finally {
      const code = await server.stop();
      if (code !== 0) problems.push(`agora serve exited with ${code} on SIGTERM`);
    }
  } catch (error) {
    problems.push(error.message);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return problems;
};

// Once more after a failure, saying why the first failed: the install reaches the npm registry, and a stop-46 CI run
// failed here once, for a reason its log did not keep. A fault of the package fails both.
let problems = await check();
if (problems.length) {
  console.log(`pack-install: the first try failed, trying once more:\n${problems.join('\n')}`);
  problems = await check();
}
if (problems.length) {
  console.log(problems.join('\n'));
  console.log('pack-install: failed');
  process.exit(1);
}
console.log('pack-install: passed');
