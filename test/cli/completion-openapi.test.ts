import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/main.js';
import { runCli } from '../helpers/cli.js';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';
import { freshHome } from './support.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** Runs a shell on a script (from a file: fish cannot read a script from a piped stdin). */
const shell = (name: string, args: string[], script: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'agora-completion-')), 'script');
  writeFileSync(file, script);
  const result = spawnSync(name, [...args, file], { encoding: 'utf8' });
  rmSync(dirname(file), { recursive: true });
  return result;
};

/** The groups of the program and their verbs, read off commander as the CLI itself builds it. */
const tree = () =>
  buildProgram()
    .commands.filter((c) => c.commands.length > 0)
    .map((group) => ({ group: group.name(), verbs: group.commands.map((v) => v.name()) }));

describe('agora completion', () => {
  let scripts: Record<'bash' | 'zsh' | 'fish', string>;
  beforeAll(async () => {
    const home = '/nonexistent';
    const [bash, zsh, fish] = await Promise.all(['bash', 'zsh', 'fish'].map((s) => runCli(['completion', s], { home })));
    for (const r of [bash!, zsh!, fish!]) expect(r.code, r.stderr).toBe(0);
    scripts = { bash: bash!.stdout, zsh: zsh!.stdout, fish: fish!.stdout };
  });

  it('prints a bash script that bash accepts', () => {
    expect(scripts.bash).toContain('pages');
    expect(scripts.bash).toContain('create');
    expect(scripts.bash).toContain('complete -F _agora agora');
    const check = shell('bash', ['-n'], scripts.bash);
    expect(check.status, check.stderr).toBe(0);
  });

  it('completes every group and verb of the program, options and their choices, in bash', () => {
    const groups = tree();
    expect(groups.map((g) => g.group)).toEqual(expect.arrayContaining(['users', 'pages', 'page-configs', 'follows']));
    const complete = (words: string[]) =>
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _agora; echo "\${COMPREPLY[*]}"`;
    const probes = [
      ['agora', ''],
      ...groups.map((g) => ['agora', g.group, '']),
      ['agora', '--url', 'http://x', 'pages', 'list', '--'],
      ['agora', 'pages', 'list', '--privacy', ''],
      ['agora', 'completion', ''],
      ['agora', 'pa'],
    ];
    const run = shell('bash', [], `${scripts.bash}\n${probes.map(complete).join('\n')}\n`);
    expect(run.status, run.stderr).toBe(0);
    const answers = run.stdout.split('\n').map((l) => l.split(' ').filter(Boolean));
    expect(answers[0]).toEqual(expect.arrayContaining(groups.map((g) => g.group).concat(['serve', 'login', 'openapi'])));
    groups.forEach((g, i) => expect(answers[i + 1], g.group).toEqual(expect.arrayContaining(g.verbs)));
    const rest = answers.slice(groups.length + 1);
    expect(rest[0]).toEqual(expect.arrayContaining(['--config', '--owner', '--privacy', '--per-page', '--json', '--url']));
    expect(rest[1]).toEqual(['public', 'private', 'secret']);
    expect(rest[2]).toEqual(['bash', 'zsh', 'fish']);
    expect(rest[3]).toEqual(['pages', 'page-configs']);
  });

  it.runIf(has('zsh'))('prints a zsh script that zsh accepts', () => {
    expect(scripts.zsh).toMatch(/^#compdef agora\n/);
    expect(scripts.zsh).toContain("'create:create a page; its creator follows and administers it'");
    const check = shell('zsh', ['-n'], scripts.zsh);
    expect(check.status, check.stderr).toBe(0);
  });

  it.runIf(has('fish'))('prints a fish script that completes groups, verbs and choices', () => {
    const probe = (line: string) => `complete -C '${line}' | string replace -r '\\t.*' ''`;
    const run = shell('fish', [], `${scripts.fish}\n${['agora pa', 'agora pages ', 'agora pages list --privacy '].map(probe).join('\necho ---\n')}\n`);
    expect(run.status, run.stderr).toBe(0);
    const [groups, verbs, choices] = run.stdout.split('---\n').map((b) => b.trim().split('\n').sort());
    expect(groups).toEqual(['page-configs', 'pages']);
    expect(verbs).toEqual(['create', 'get', 'help', 'list']);
    expect(choices).toEqual(['private', 'public', 'secret']);
  });

  it('refuses an unknown shell with exit 2', async () => {
    const [bad, missing] = await Promise.all([
      runCli(['completion', 'tcsh'], { home: '/nonexistent' }),
      runCli(['completion'], { home: '/nonexistent' }),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      "error: command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.\n",
    );
    expect(missing.code).toBe(2);
  });
});

describe('agora openapi', () => {
  let server: RunningServer;
  let document: unknown;
  beforeAll(async () => {
    server = await startServer();
    document = await (await fetch(`${server.url}/public-api/v1/openapi.json`)).json();
  });
  afterAll(async () => {
    await server.stop();
    removeDir(server.dir);
  });

  it('prints the OpenAPI document of the server named by --url or AGORA_URL, without credentials', async () => {
    const home = freshHome(server);
    const [flag, env] = await Promise.all([
      runCli(['openapi', '--url', server.url], { home }),
      runCli(['openapi'], { home, env: { AGORA_URL: server.url } }),
    ]);
    for (const r of [flag, env]) {
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(document);
    }
    expect(document).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./) });
    expect(Object.keys((document as { paths: object }).paths)).toContain('/public-api/v1/pages');
  });

  it("uses the profile's URL, and sends no key (a stale secret does not matter)", async () => {
    const home = freshHome(server);
    mkdirSync(join(home, '.config', 'agora'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'agora', 'credentials.json'),
      JSON.stringify({ current: 'old', profiles: { old: { url: server.url, api_key: 'ak_gone', api_secret: 'as_gone' } } }),
    );
    const [openapi, list] = await Promise.all([runCli(['openapi'], { home }), runCli(['pages', 'list'], { home })]);
    expect(openapi.code, openapi.stderr).toBe(0);
    expect(JSON.parse(openapi.stdout)).toEqual(document);
    expect(list.code).toBe(4); // the same profile is refused where a key is needed
  });

  it('fails with exit 1 when the server cannot be reached', async () => {
    const result = await runCli(['openapi', '--url', 'http://127.0.0.1:9'], { home: freshHome(server) });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe('error: Cannot reach the agora server at http://127.0.0.1:9 (ECONNREFUSED)');
    expect(result.stderr).toMatch(/\nIs the server running\? Start one with .*agora serve --port 9, or log in to another with .*agora login --url URL\n$/);
  });
});
