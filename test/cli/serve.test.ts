import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { removeDir, startServer } from '../helpers/server.js';

const VERSION = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;

describe('agora serve', () => {
  it('prints exactly one listening line, refuses a taken port, and exits 0 on SIGINT', async () => {
    const server = await startServer();
    try {
      const lines = server.output().split('\n').filter(Boolean);
      expect(lines).toEqual([`listening on ${server.url}`]);
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(Number(new URL(server.url).port)).toBeGreaterThan(0);
      // It answers, then stops cleanly.
      const res = await fetch(`${server.url}/public-api/v1/openapi.json`);
      expect(res.status).toBe(200);
      // A second server on the same port fails with one clear line.
      const port = new URL(server.url).port;
      const taken = await runCli(['serve', '--port', port, '--db', join(server.dir, 'other.db')], { home: server.dir });
      expect(taken.code).toBe(1);
      expect(taken.stdout).toBe('');
      expect(taken.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use (another agora serve?): stop it, or pick another with --port (--port 0 picks a free one)\n`,
      );
      expect(await server.stop('SIGINT')).toBe(0);
      expect(server.output().split('\n').filter(Boolean)).toHaveLength(1);
      await expect(fetch(`${server.url}/public-api/v1/openapi.json`)).rejects.toThrow();
    } finally {
      await server.stop();
      removeDir(server.dir);
    }
  });

  it('warns, naming the webhooks, when its secret key cannot open their signing secrets; not with the right key', async () => {
    const env = { AGORA_WEBHOOKS_ALLOW_PRIVATE: '1', AGORA_SECRET_KEY: 'the key it was first served with' };
    const server = await startServer({ env });
    try {
      const hook = await fetch(`${server.url}/public-api/v1/webhooks`, {
        method: 'POST',
        headers: { 'api-key': server.admin.key, 'api-secret': server.admin.secret, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['invite.created'] }),
      });
      expect(hook.status).toBe(201);
      const { id } = (await hook.json()) as { id: string };
      expect(await server.stop()).toBe(0);
      const other = await startServer({ env: { ...env, AGORA_SECRET_KEY: 'another key, sixteen or more' }, dir: server.dir, db: server.db });
      await other.stop();
      expect(other.errors()).toContain(
        `warning: the secret key (AGORA_SECRET_KEY, else the file <db>.key beside a SQLite store) cannot open the signing secrets of 1 webhook(s) (${id}): their deliveries will fail.`,
      );
      const again = await startServer({ env, dir: server.dir, db: server.db });
      await again.stop();
      expect(again.errors()).not.toContain('cannot open the signing secrets');
    } finally {
      await server.stop();
      removeDir(server.dir);
    }
  });

  it('exits 0 on SIGTERM and keeps the data for the next start', async () => {
    const server = await startServer();
    try {
      const created = await runCli(['page-configs', 'create', '--name', 'Kept', '--json'], {
        home: server.dir,
        env: { AGORA_URL: server.url, AGORA_API_KEY: server.admin.key, AGORA_API_SECRET: server.admin.secret },
      });
      expect(created.code, created.stderr).toBe(0);
      expect(await server.stop('SIGTERM')).toBe(0);

      const again = await startServer({ dir: server.dir });
      try {
        const list = await runCli(['page-configs', 'list'], {
          home: server.dir,
          env: { AGORA_URL: again.url, AGORA_API_KEY: again.admin.key, AGORA_API_SECRET: again.admin.secret },
        });
        expect(list.stdout).toContain(`${JSON.parse(created.stdout).id}\tKept\t`);
      } finally {
        expect(await again.stop('SIGTERM')).toBe(0);
      }
    } finally {
      removeDir(server.dir);
    }
  });

  it('rejects a bad --port or AGORA_PORT as usage (exit 2)', async () => {
    const [flag, env] = await Promise.all([
      runCli(['serve', '--port', '70000'], { home: tmpdir() }),
      runCli(['serve'], { home: tmpdir(), env: { AGORA_PORT: 'abc' } }),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      "error: option '--port <port>' argument '70000' is invalid. must be a whole number from 0 to 65535\n",
    );
    expect(env.code).toBe(2);
    expect(env.stderr).toBe(
      "error: option '--port <port>' value 'abc' from env 'AGORA_PORT' is invalid. must be a whole number from 0 to 65535\n",
    );
  });

  it('--demo seeds a community and prints a key that works for login', async () => {
    const server = await startServer({ args: ['--demo'] });
    try {
      const output = server.output();
      expect(output.split('\n').filter((l) => l.startsWith('listening on '))).toEqual([`listening on ${server.url}`]);
      const key = /api_key=(\S+) api_secret=(\S+)/.exec(output);
      expect(key, output).not.toBeNull();

      const home = mkdtempSync(join(server.dir, 'home-'));
      const login = await runCli(['login', '--url', server.url, '--api-key', key![1]!, '--api-secret', key![2]!], { home });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stdout).toContain('as admin');

      const [pages, users, follows] = await Promise.all([
        runCli(['pages', 'list'], { home }),
        runCli(['users', 'list', '--json'], { home }),
        runCli(['follows', 'list', '--json'], { home }),
      ]);
      const rows = pages.stdout.trim().split('\n').map((l) => l.split('\t'));
      expect(rows.map((r) => [r[1], r[3]])).toEqual(
        expect.arrayContaining([
          ['Garden Club', 'public'],
          ['Book Circle', 'private'],
          ['Board Room', 'secret'],
        ]),
      );
      const nicknames = (JSON.parse(users.stdout) as { items: { nickname: string }[] }).items.map((u) => u.nickname);
      expect(nicknames).toEqual(expect.arrayContaining(['admin', 'ada', 'grace', 'alan']));
      expect((JSON.parse(follows.stdout) as { total_items: number }).total_items).toBeGreaterThan(3);
    } finally {
      expect(await server.stop('SIGINT')).toBe(0);
      removeDir(server.dir);
    }
  });
});

describe('version and help', () => {
  it('--version and -V print the package version; --help exits 0', async () => {
    const home = tmpdir();
    const [long, short, help, groupHelp] = await Promise.all([
      runCli(['--version'], { home }),
      runCli(['-V'], { home }),
      runCli(['--help'], { home }),
      runCli(['pages', '--help'], { home }),
    ]);
    expect(long.code).toBe(0);
    expect(long.stdout).toBe(`${VERSION}\n`);
    expect(short.stdout).toBe(`${VERSION}\n`);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: agora \[options\] \[command\]/);
    for (const group of ['serve', 'login', 'users', 'pages', 'page-configs', 'follows', 'permissions', 'openapi', 'completion'])
      expect(help.stdout).toMatch(new RegExp(`^  ${group}\\b`, 'm'));
    expect(groupHelp.code).toBe(0);
    expect(groupHelp.stdout).toMatch(/^ {2}create \[options\]/m);
    expect(groupHelp.stdout).toMatch(/^ {2}list \[options\]/m);
    expect(groupHelp.stdout).toMatch(/^ {2}get <page>/m);
  });

  it('an unknown command is a usage error (exit 2) with a suggestion', async () => {
    const result = await runCli(['pagess', 'list'], { home: tmpdir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown command 'pagess'\n(Did you mean pages?)\n");
  });

  it('starts light: --version, a piped list and completion load no heavy module', async () => {
    // The server, the store, the table code and the prompts wait for the commands that need them (zod for the
    // first answer to check).
    const env = { NODE_DEBUG: 'esm', AGORA_URL: 'http://127.0.0.1:9', AGORA_API_KEY: 'k', AGORA_API_SECRET: 's' };
    const runs = await Promise.all([
      runCli(['--version'], { home: tmpdir(), env }),
      runCli(['pages', 'list'], { home: tmpdir(), env }),
      runCli(['completion', 'bash'], { home: tmpdir(), env }),
    ]);
    // The CLI is one bundle: the server's packages (left out of it) never load for a client command.
    for (const run of runs) expect(run.stderr.match(/node_modules\/(@[^/]+\/)?[^/']+/g) ?? []).toEqual([]);
    expect(runs[0]!.stderr).toMatch(/dist\/main\.js/);
  });
});
