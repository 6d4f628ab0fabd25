import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { BIN, removeDir, useServer } from '../helpers/server.js';
import { envFor, tsvRows } from './support.js';

/** What a new administrator meets in the first hour (docs/architecture.md, "The client and the CLI"): help, names, next steps printed. */

const server = useServer();
const home = () => mkdtempSync(join(server.dir, 'home-'));

describe('help', () => {
  it('`agora help pages list` is the verb\'s help, with the global options and examples', async () => {
    const viaHelp = await runCli(['help', 'pages', 'list'], { home: home() });
    const viaFlag = await runCli(['pages', 'list', '--help'], { home: home() });
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toMatch(/^Usage: agora pages list \[options\]/);
    const globals = viaHelp.stdout.split('Global Options:')[1] ?? '';
    for (const flag of ['--json', '--profile <name>', '--url <url>', '--timeout <seconds>']) expect(globals).toContain(flag);
    // Run in a checkout: the examples say what runs there.
    expect(viaHelp.stdout).toMatch(/Examples:\n {2}\$ npx agora pages list/);
  });

  it('every help screen that lacked them has examples; create-key names --json', async () => {
    for (const args of [['--help'], ['queue', '--help'], ['audit', 'list', '--help'], ['admin', 'create-key', '--help']]) {
      const help = await runCli(args, { home: home() });
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout, args.join(' ')).toMatch(/\nExamples:\n {2}\$ npx agora /);
    }
    // Help shown after a usage error (a group without its verb) is on stderr, its examples as they run too.
    const bare = await runCli(['reports'], { home: home() });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/\nExamples:\n {2}\$ npx agora reports /);
    const createKey = await runCli(['admin', 'create-key', '--help'], { home: home() });
    expect(createKey.stdout).toMatch(/--json/);
    expect(createKey.stdout).toMatch(/--user <user>\s+user who owns the key \(id or nickname\)/);
  });
});

describe('names where ids are', () => {
  it('audit list: --actor takes a nickname, the actor column shows it, a misspelt --action is exit 2 listing the actions', async () => {
    const nickname = `auditor${Date.now() % 100000}`;
    const { user, creds } = await createUserWithKey(server, { nickname });
    const env = envFor(server);
    // The user acts: a page configuration is no audited act, but an API key made over the API by an Admin is;
    // the user's own act here is made by the administrator for them, so look for the admin's acts by nickname.
    const byAdmin = await runCli(['audit', 'list', '--actor', 'admin', '--action', 'user.create', '--target-id', user.id], { home: server.dir, env });
    expect(byAdmin.code, byAdmin.stderr).toBe(0);
    expect(tsvRows(byAdmin.stdout).map((r) => r[1])).toEqual(['admin']);
    const byUser = await runCli(['audit', 'list', '--actor', nickname, '--json'], { home: server.dir, env });
    expect(byUser.code, byUser.stderr).toBe(0);
    expect(JSON.parse(byUser.stdout)).toEqual({ items: [], total_items: 0 });
    const nobody = await runCli(['audit', 'list', '--actor', `nobody${Date.now()}`], { home: server.dir, env });
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/No user with the id or nickname "nobody\d+"/);
    // Times and days too, with the API's own schema, before any request.
    const since = await runCli(['audit', 'list', '--since', 'yesterday'], { home: server.dir, env });
    expect([since.code, since.stderr]).toEqual([2, 'error: --since must be an ISO 8601 date (2026-12-31: its midnight UTC) or a time with its offset (2026-12-31T18:00:00Z)\n']);
    const day = await runCli(['events', 'list', '--date', '2026-02-30'], { home: server.dir, env });
    expect([day.code, day.stderr]).toEqual([2, 'error: --date is not a real day\n']);
    const misspelt = await runCli(['audit', 'list', '--action', 'page_access_request.acept'], { home: server.dir, env });
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/--action: no action "page_access_request.acept"; the actions are page_access_request.accept, /);
    expect(creds.key).toBeTruthy();
  });

  it('admin create-key --user takes a nickname (offline, on the store)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agora-key-'));
    try {
      const db = join(dir, 'a.db');
      const first = await runCli(['admin', 'create-key', '--db', db, '--json'], { home: dir });
      expect(first.code, first.stderr).toBe(0);
      // A path that named no store (mistyped, or a script's first step) is said to have made one; once only.
      expect(first.stderr).toBe(`note: there was no store at ${db}: made a new, empty one (a server on another store will not know this key)\n`);
      const admin = JSON.parse(first.stdout) as { user_id: string };
      const byName = await runCli(['admin', 'create-key', '--db', db, '--user', 'admin', '--json'], { home: dir });
      expect(byName.code, byName.stderr).toBe(0);
      expect(byName.stderr).toBe('');
      expect(JSON.parse(byName.stdout).user_id).toBe(admin.user_id);
      const listed = await runCli(['admin', 'list-keys', '--db', db, '--user', 'admin', '--json'], { home: dir });
      expect(JSON.parse(listed.stdout).items).toHaveLength(2);
      const unknown = await runCli(['admin', 'create-key', '--db', db, '--user', 'ada'], { home: dir });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toBe('error: No user with the id or nickname "ada"\n');
      // Commands that only read or change a store refuse a path where there is none, and make nothing there.
      for (const args of [['list-keys'], ['check'], ['revoke-key', 'ak_x']]) {
        const missing = await runCli(['admin', ...args, '--db', join(dir, 'c.db')], { home: dir });
        expect(missing.code, args[0]).toBe(1);
        expect(missing.stderr, args[0]).toBe(`error: no store at ${join(dir, 'c.db')}\n`);
        expect(existsSync(join(dir, 'c.db')), args[0]).toBe(false);
      }
      // A mistyped path with --user: the user is not in the new, empty store, and the store is said to be new.
      const mistyped = await runCli(['admin', 'create-key', '--db', join(dir, 'b.db'), '--user', 'admin'], { home: dir });
      expect(mistyped.code).toBe(1);
      expect(mistyped.stderr).toBe(`note: there was no store at ${join(dir, 'b.db')}: made a new, empty one\nerror: No user with the id or nickname "admin"\n`);
    } finally {
      removeDir(dir);
    }
  });
});

describe('--json with --fields', () => {
  it('keeps only those fields of each record, in that order', async () => {
    const listed = await runCli(['users', 'list', '--json', '--fields', 'nickname,id'], { home: server.dir, env: envFor(server) });
    expect(listed.code, listed.stderr).toBe(0);
    const body = JSON.parse(listed.stdout) as { items: Record<string, unknown>[]; total_items: number };
    expect(body.items.length).toBeGreaterThan(0);
    for (const item of body.items) expect(Object.keys(item)).toEqual(['nickname', 'id']);
    const wrong = await runCli(['users', 'list', '--json', '--fields', 'nick'], { home: server.dir, env: envFor(server) });
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stderr).error.message).toMatch(/^--fields: no field "nick"; the records' fields are id, /);
  });
});

/** `agora serve` on a new store, in a checkout (the test runs the checkout's bin/agora.js from its root). */
function serveOnce(args: string[], cwd: string): Promise<{ lines: string[]; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
      cwd,
      env: { ...process.env, AGORA_BOOTSTRAP_API_KEY: '', AGORA_BOOTSTRAP_API_SECRET: '' },
    });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (/then log in with: .*\n/.test(out) || /--api-secret \S+\n/.test(out)) child.kill('SIGINT');
    });
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ lines: out.split('\n').filter(Boolean), code, stderr }));
    setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
  });
}

describe('first run', () => {
  it('serve on a store without a key says how to make the first one, runnable where the user stands', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agora-first-'));
    try {
      const db = join(dir, 'new.db');
      const root = join(__dirname, '../..');
      const run = await serveOnce(['--db', db], root);
      expect(run.code, run.stderr).toBe(0);
      expect(run.lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      const url = run.lines[0]!.slice('listening on '.length);
      expect(run.lines.slice(1)).toEqual([
        `no API key yet: make the first (for the administrator "admin") with: npx agora admin create-key --db ${db}`,
        `then log in with: npx agora login --url ${url}`,
      ]);
      // The key as every record: a table at a terminal, with the one warning that the secret is not shown again.
      const made = await runCliTty(['admin', 'create-key', '--db', db], { home: dir });
      expect(made.code, made.stdout).toBe(0);
      expect(made.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/│ api_secret +│ as_[\w-]+ +│/);
      expect(made.stdout).toMatch(/The secret is shown only this once: store it now\./);
      // Too narrow for the secret in a table: a line a field, the secret whole on its line.
      const narrow = await runCliTty(['admin', 'create-key', '--db', db], { home: dir, columns: 50 });
      const plain = narrow.stdout.replace(/\u001b\[[0-9;]*m/g, '');
      expect(plain).not.toContain('│');
      expect(plain).toMatch(/^api_secret +as_[\w-]{43}\r?$/m);
      // Once a key exists, nothing more is said.
      const again = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db], { cwd: root });
        let out = '';
        child.stdout.on('data', (c) => {
          out += c;
          if (/listening on/.test(out)) setTimeout(() => child.kill('SIGINT'), 300);
        });
        child.on('close', () => resolve(out));
      });
      expect(again.split('\n').filter(Boolean)).toHaveLength(1);
    } finally {
      removeDir(dir);
    }
  });

  it('serve --demo prints a key when it seeds; started again, it makes none and says how to make one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agora-demo-'));
    try {
      const db = join(dir, 'demo.db');
      const root = join(__dirname, '../..');
      const first = await serveOnce(['--demo', '--db', db], root);
      expect(first.code, first.stderr).toBe(0);
      expect(first.lines.slice(0, 2)).toEqual(['demo community seeded', expect.stringMatching(/^demo administrator key: api_key=ak_\w+ api_secret=as_/)]);
      expect(first.lines.at(-1)).toMatch(/^log in with: npx agora login --url http:\/\/127\.0\.0\.1:\d+ --api-key ak_\w+ --api-secret as_/);
      const again = await serveOnce(['--demo', '--db', db], root);
      expect(again.code, again.stderr).toBe(0);
      const url = again.lines[1]!.slice('listening on '.length);
      expect(again.lines).toEqual([
        'demo community already present',
        `listening on ${url}`,
        `log in with the key printed when it was seeded, or make another with: npx agora admin create-key --db ${db}`,
        `then log in with: npx agora login --url ${url}`,
      ]);
      // One administrator key, whatever the number of starts.
      const keys = await runCli(['admin', 'list-keys', '--db', db, '--json'], { home: dir });
      expect(keys.code, keys.stderr).toBe(0);
      const [only] = JSON.parse(keys.stdout).items as { api_key: string }[];
      expect(JSON.parse(keys.stdout).items).toHaveLength(1);
      // With that key revoked, a start says how to make the first again.
      expect((await runCli(['admin', 'revoke-key', '--db', db, only!.api_key], { home: dir })).code).toBe(0);
      const keyless = await serveOnce(['--demo', '--db', db], root);
      expect(keyless.lines.slice(2)).toEqual([
        `no API key yet: make the first (for the administrator "admin") with: npx agora admin create-key --db ${db}`,
        expect.stringMatching(/^then log in with: npx agora login --url http:/),
      ]);
    } finally {
      removeDir(dir);
    }
  });

  it('a busy port, a refused connection and a refused key each say what to do next', async () => {
    const port = new URL(server.url).port;
    const dir = mkdtempSync(join(tmpdir(), 'agora-busy-'));
    try {
      const busy = await runCli(['serve', '--port', port, '--db', join(dir, 'b.db')], { home: dir });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use (another agora serve?): stop it, or pick another with --port (--port 0 picks a free one)\n`,
      );
    } finally {
      removeDir(dir);
    }
    const refused = await runCli(['pages', 'list'], {
      home: home(),
      env: { AGORA_URL: 'http://127.0.0.1:1', AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_xxxxxxxxxxxxxxxx' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Cannot reach the agora server at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)\n/);
    expect(refused.stderr).toMatch(/Is the server running\? Start one with .*agora serve --port 1, or log in to another with .*agora login --url URL\n$/);
    // whoami still says which server it would use.
    const who = await runCli(['whoami'], { home: home(), env: { AGORA_URL: 'http://127.0.0.1:1', AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_xxxxxxxxxxxxxxxx' } });
    expect(who.code).toBe(1);
    expect(who.stdout).toMatch(/url\s+http:\/\/127\.0\.0\.1:1/);
    expect(who.stdout).toMatch(/profile\s+none \(AGORA_API_KEY\)/);
    // A stored profile whose secret the server no longer takes (revoked, or rotated elsewhere).
    const wrongHome = home();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(wrongHome, '.config', 'agora'), { recursive: true });
    writeFileSync(
      join(wrongHome, '.config', 'agora', 'credentials.json'),
      JSON.stringify({ current: 'ops', profiles: { ops: { url: server.url, api_key: server.admin.key, api_secret: 'as_wrongwrongwrongwrong' } } }),
      { mode: 0o600 },
    );
    const wrongKey = await runCli(['pages', 'list', '--profile', 'ops'], { home: wrongHome });
    expect(wrongKey.code).toBe(4);
    expect(wrongKey.stderr).toMatch(/The key of profile "ops" was refused: log in again with .*agora login --profile ops\n$/);
  });
});

describe('narrow terminals', () => {
  it('keeps ids whole (a unique prefix) and names readable, leaving out the last columns and saying so', async () => {
    const { stripAnsi, withoutSpinner } = await import('./support.js');
    const { runCliTty } = await import('../helpers/cli.js');
    const env = envFor(server);
    const ids = JSON.parse((await runCli(['users', 'list', '--json', '--per-page', '100'], { home: server.dir, env })).stdout).items.map(
      (u: { id: string }) => u.id,
    ) as string[];
    for (const columns of [40, 60]) {
      const run = await runCliTty(['users', 'list', '--per-page', '100'], { home: home(), env, columns });
      expect(run.code, run.stdout).toBe(0);
      const screen = stripAnsi(withoutSpinner(run.stdout)).replace(/\r/g, '');
      const lines = screen.split('\n').filter((l) => l.startsWith('│'));
      for (const line of screen.split('\n').filter((l) => /^[┌├└│]/.test(l))) expect(line.length, line).toBeLessThanOrEqual(columns);
      const shown = lines.slice(1).map((l) => l.split('│')[1]!.trim());
      // Each shown id is a prefix of exactly one user's id, and not cut with an ellipsis.
      for (const prefix of shown) {
        expect(prefix).not.toContain('…');
        expect(ids.filter((id) => id.startsWith(prefix))).toHaveLength(1);
      }
      // The nickname column keeps room: "admin" whole.
      expect(lines.some((l) => l.split('│')[2]!.trim() === 'admin')).toBe(true);
      if (columns === 40) {
        // Said in lines that fit, broken between words.
        expect(screen.replace(/\n/g, ' ')).toMatch(/left out for the terminal's width; --fields picks the columns\)/);
        for (const line of screen.split('\n').filter((l) => /left out|--fields|columns\)/.test(l))) expect(line.length, line).toBeLessThanOrEqual(columns);
      }
    }
  });
});

describe('prompts check each answer as it is given', () => {
  const tty = async (args: string[], answers: { when: RegExp; send: string }[]) => {
    const { runCliTty } = await import('../helpers/cli.js');
    const { stripAnsi } = await import('./support.js');
    const run = await runCliTty(args, { home: home(), env: envFor(server), answers, timeoutMs: 30_000 });
    return { ...run, screen: stripAnsi(run.stdout) };
  };

  it('"No" to the confidentiality consent explains and asks again, keeping everything typed', async () => {
    const nickname = `consent${Date.now() % 100000}`;
    const consent = /Does the user accept the confidentiality policy\? \(y\/N\)/;
    const run = await tty(
      ['users', 'create', '--first-name', 'Con', '--last-name', 'Sent', '--nickname', nickname, '--email', `${nickname}@example.org`,
        '--password', 'secret123', '--accept-conditions'],
      [
        { when: consent, send: 'n\r' },
        { when: /answer yes, or Ctrl-C to stop/, send: 'y\r' },
      ],
    );
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(/Without it nothing can be created \(--accept-confidentiality\); answer yes, or Ctrl-C to stop/);
    const found = await runCli(['users', 'list', '--nickname', nickname, '--json'], { home: server.dir, env: envFor(server) });
    expect(JSON.parse(found.stdout).total_items).toBe(1);
  });

  it('an end date before the start is refused as it is typed, and asked again', async () => {
    const name = `Swap ${Date.now() % 100000}`;
    const run = await tty(['events', 'create', '--name', name, '--start', '2031-05-02 10:00'], [
      { when: /Ends \(YYYY-MM-DD HH:MM\)/, send: '2031-05-01 10:00\r' },
      { when: /the end must not be before the start/, send: '\u00152031-05-02 12:00\r' },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(/the end must not be before the start/);
    const found = await runCli(['events', 'list', '--json', '--all'], { home: server.dir, env: envFor(server) });
    expect(JSON.parse(found.stdout).items.filter((e: { name: string }) => e.name === name)).toHaveLength(1);
  });

  it('follows delete names what is unfollowed, not a bare id', async () => {
    const { call, createPageConfiguration, createPage } = await import('../helpers/api.js');
    const name = `Unfollowed ${Date.now() % 100000}`;
    const config = await createPageConfiguration(server);
    const me = (await call(server, 'GET', '/me')).body as { id: string };
    const page = await createPage(server, { name, user_id: me.id, page_configuration_id: config.id });
    const follows = await runCli(['follows', 'list', '--user', 'admin', '--id', page.id, '--type', 'Page', '--json'], { home: server.dir, env: envFor(server) });
    const follow = JSON.parse(follows.stdout).items[0] as { id: string };
    const run = await tty(['follows', 'delete', follow.id], [{ when: /\(y\/N\)/, send: 'n\r' }]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain(`Delete admin's follow of ${name} (page)? (y/N)`);
    // Another user's follow is named too (an Admin's unfollow for them), and read by its id.
    const { createUserWithKey } = await import('../helpers/api.js');
    const fan = await createUserWithKey(server);
    const theirs = (await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: page.id, user_id: fan.user.id } })).body as { id: string };
    const asked = await tty(['follows', 'delete', theirs.id], [{ when: /\(y\/N\)/, send: 'n\r' }]);
    expect(asked.screen).toContain(`Delete ${fan.user.nickname}'s follow of ${name} (page)? (y/N)`);
    const got = await runCli(['follows', 'get', theirs.id], { home: server.dir, env: envFor(server) });
    expect(got.code, got.stderr).toBe(0);
    expect(Object.fromEntries(tsvRows(got.stdout).map(([k, v]) => [k, v]))).toMatchObject({ id: theirs.id, follower: fan.user.nickname, followable_id: page.id });
  });

  it('a confirmation takes y or yes, not "yy"', async () => {
    const id = 'f'.repeat(32);
    const prompt = /Delete follow f{32}\? \(y\/N\)/;
    const run = await tty(['follows', 'delete', id], [
      { when: prompt, send: 'yy\r' },
      { when: /answer y or n/, send: '\u0015n\r' },
    ]);
    // Declined: nothing was sent (a sent delete of an unknown follow would fail with 404, exit 1).
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(/answer y or n/);
    expect(run.screen).not.toMatch(/not_found|HTTP 404/);
  });
});

describe('Ctrl-C and a lost connection', () => {
  it('notifications watch names the user, says once that it lost the server and once that it is back, and exits 130 on Ctrl-C', async () => {
    const { startServer } = await import('../helpers/server.js');
    const { Terminal } = await import('../helpers/tmux.js');
    const own = await startServer();
    const port = new URL(own.url).port;
    // A shell at the prompt runs it, as a person would: Ctrl-C reaches the command, and the shell shows its code.
    const term = new Terminal(home(), { ...envFor(own), AGORA_URL: own.url }, { width: 120, height: 30 });
    term.type(`${process.execPath} ${BIN} notifications watch; echo watch-exit=$?`);
    let again: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      await term.waitFor(/Watching the notifications of admin; Ctrl-C to stop\./, 15_000);
      await own.stop('SIGTERM');
      await term.waitFor(/connection lost \(.*\); reconnecting…/, 10_000);
      // A few tries fail while the server is down: still one line.
      await new Promise((r) => setTimeout(r, 2500));
      expect(term.screen().match(/reconnecting…/g)).toHaveLength(1);
      again = await startServer({ dir: own.dir, args: ['--port', port] });
      await term.waitFor(/^reconnected$/m, 20_000);
      term.keys('C-c');
      expect(/watch-exit=(\d+)/.exec(await term.waitFor(/watch-exit=\d+/))![1]).toBe('130');
    } finally {
      term.close();
      await again?.stop();
      removeDir(own.dir);
    }
  });

  it('queue exits 130 on Ctrl-C or SIGINT and 0 on q', async () => {
    const { Terminal } = await import('../helpers/tmux.js');
    // SIGINT: what a Ctrl-C typed before the screen reads keys is (the terminal is not yet raw), and `kill -INT`.
    for (const [key, code] of [['C-c', 130], ['SIGINT', 130], ['q', 0]] as const) {
      const term = new Terminal(home(), envFor(server), { agora: ['queue'], width: 80, height: 24 });
      try {
        await term.waitFor(/agora queue/, 15_000);
        if (key === 'SIGINT') term.signal(key);
        else term.keys(key);
        // A bound for a hung screen, not a speed: on a loaded machine its closing has taken over 5 s.
        expect(await term.exitCode(20_000)).toBe(code);
      } finally {
        term.close();
      }
    }
  });
});

describe('completion of --profile', () => {
  it('offers the stored profiles, not file names; --db still offers files', async () => {
    const { spawnSync } = await import('node:child_process');
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const dir = home();
    const login = await runCli(['login', '--url', server.url, '--api-key', server.admin.key, '--api-secret', server.admin.secret, '--profile', 'staging'], { home: dir });
    expect(login.code, login.stderr).toBe(0);
    mkdirSync(join(dir, 'work'));
    writeFileSync(join(dir, 'work', 'stuff.db'), '');
    const script = (await runCli(['completion', 'bash'], { home: dir })).stdout;
    const complete = (words: string[]) =>
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _agora; echo "\${COMPREPLY[*]}"`;
    const run = spawnSync('bash', [], {
      cwd: join(dir, 'work'),
      env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') },
      input: `agora() { ${process.execPath} ${BIN} "$@"; }\n${script}\n${[
        ['agora', '--profile', ''],
        ['agora', 'pages', 'list', '--profile', 'st'],
        ['agora', 'admin', 'create-key', '--db', ''],
        ['agora', 'pages', 'list', '--owner', ''],
      ]
        .map(complete)
        .join('\n')}\n`,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.split('\n').slice(0, 4)).toEqual(['staging', 'staging', 'stuff.db', '']);
  });
});

describe('emoji in tables', () => {
  it('a joined emoji (👨‍👩‍👧) is drawn unjoined, so every terminal puts the borders in line; --json keeps it', async () => {
    const { runCliTty } = await import('../helpers/cli.js');
    const { stripAnsi, withoutSpinner } = await import('./support.js');
    const stringWidth = (await import('string-width')).default;
    const name = `Fam 👨‍👩‍👧 ${Date.now() % 100000}`;
    const env = envFor(server);
    expect((await runCli(['page-configs', 'create', '--name', name], { home: server.dir, env })).code).toBe(0);
    const json = await runCli(['page-configs', 'list', '--json', '--all'], { home: server.dir, env });
    expect(JSON.parse(json.stdout).items.map((c: { name: string }) => c.name)).toContain(name);
    const run = await runCliTty(['page-configs', 'list', '--all'], { home: home(), env });
    const lines = stripAnsi(withoutSpinner(run.stdout)).replace(/\r/g, '').split('\n').filter((l) => /^[┌├└│]/.test(l));
    expect(lines.some((l) => l.includes('Fam 👨👩👧'))).toBe(true);
    expect(lines.join('\n')).not.toContain('\u200d');
    expect(new Set(lines.map((l) => stringWidth(l))).size).toBe(1);
  });
});
