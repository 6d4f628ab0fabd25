import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { useServer, type Credentials } from '../helpers/server.js';
import { ANSI, freshHome } from './support.js';

const server = useServer();
let member: Credentials;
let secretPage: Awaited<ReturnType<typeof createPage>>;

beforeAll(async () => {
  const created = await createUserWithKey(server, { nickname: `member_${Date.now()}` });
  member = created.creds;
  const config = await createPageConfiguration(server);
  const admin = (await call(server, 'GET', '/me')).body as { id: string };
  // Visible to the administrator (a project admin and its creator), invisible to the member.
  secretPage = await createPage(server, { user_id: admin.id, page_configuration_id: config.id, privacy: 'secret' });
});

const credentialsFile = (home: string) => join(home, '.config', 'agora', 'credentials.json');
const login = (home: string, creds: Credentials, extra: string[] = []) =>
  runCli(['login', '--url', server.url, '--api-key', creds.key, '--api-secret', creds.secret, ...extra], { home });
const pageNames = async (home: string, args: string[] = [], env: Record<string, string> = {}) => {
  const result = await runCli(['pages', 'list', '--json', ...args], { home, env });
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { items: { name: string }[] }).items.map((p) => p.name);
};

describe('agora login', () => {
  it('stores the profile in $XDG_CONFIG_HOME/agora/credentials.json, private, without printing the secret', async () => {
    const home = freshHome(server);
    const result = await login(home, server.admin);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Logged in to http:\/\/127\.0\.0\.1:\d+ as admin \([0-9a-f]{32}\); profile "default" saved\n$/);
    expect(result.stdout + result.stderr).not.toContain(server.admin.secret);

    const path = credentialsFile(home);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.config', 'agora')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      current: 'default',
      profiles: { default: { url: server.url, api_key: server.admin.key, api_secret: server.admin.secret } },
    });
    // The stored profile is enough for the next command.
    expect(await pageNames(home)).toContain(secretPage.name);
    // Made readable by others (a copy, a chmod by hand), it is its owner's again as the next command reads it.
    chmodSync(path, 0o644);
    const next = await runCli(['pages', 'list', '--json'], { home });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toBe(`agora: ${path} was readable by others (mode 644); it is now 600\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('never prints the secret with --json or at a terminal either', async () => {
    const [json, tty] = await Promise.all([
      login(freshHome(server), server.admin, ['--json']),
      runCliTty(['login', '--url', server.url, '--api-key', server.admin.key, '--api-secret', server.admin.secret], {
        home: freshHome(server),
      }),
    ]);
    expect(json.code, json.stderr).toBe(0);
    const body = JSON.parse(json.stdout) as { profile: string; url: string; user: { nickname: string } };
    expect(body).toMatchObject({ profile: 'default', url: server.url, user: { nickname: 'admin' } });
    expect(tty.code, tty.stdout).toBe(0);
    expect(tty.stdout).toContain('Logged in to');
    for (const r of [json, tty]) expect(r.stdout + r.stderr).not.toContain(server.admin.secret);
  });

  it('refuses a wrong secret with exit 4 and stores nothing', async () => {
    const home = freshHome(server);
    const result = await login(home, { key: server.admin.key, secret: 'as_wrong_secret' });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error: Invalid API key or secret (unauthorized, HTTP 401)\n');
    expect(existsSync(credentialsFile(home))).toBe(false);
  });

  it('leaves existing profiles untouched when a later login is refused', async () => {
    const home = freshHome(server);
    expect((await login(home, server.admin)).code).toBe(0);
    const before = readFileSync(credentialsFile(home), 'utf8');
    const refused = await login(home, { key: member.key, secret: 'as_wrong' }, ['--profile', 'member']);
    expect(refused.code).toBe(4);
    expect(readFileSync(credentialsFile(home), 'utf8')).toBe(before);
  });

  it('says what is missing when run without a terminal and without the key', async () => {
    const result = await runCli(['login', '--url', server.url], { home: freshHome(server) });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: login needs --api-key and --api-secret when not run on a terminal\n');
  });
});

describe('profiles, --profile and logout', () => {
  let home: string;
  beforeAll(async () => {
    home = freshHome(server);
    expect((await login(home, server.admin)).code).toBe(0);
    expect((await login(home, member, ['--profile', 'member'])).code).toBe(0);
  });

  it('lists the profiles in every mode without a secret', async () => {
    const [tsv, json, table] = await Promise.all([
      runCli(['profiles'], { home }),
      runCli(['profiles', '--json'], { home }),
      runCliTty(['profiles'], { home, env: { NO_COLOR: '1' } }),
    ]);
    for (const r of [tsv, json, table]) {
      expect(r.code, r.stderr + r.stdout).toBe(0);
      for (const secret of [server.admin.secret, member.secret]) expect(r.stdout + r.stderr).not.toContain(secret);
    }
    // The last login became the current profile.
    expect(tsv.stdout).toBe(`\tdefault\t${server.url}\t${server.admin.key}\n*\tmember\t${server.url}\t${member.key}\n`);
    expect(JSON.parse(json.stdout)).toEqual({
      items: [
        { name: 'default', url: server.url, api_key: server.admin.key, current: false },
        { name: 'member', url: server.url, api_key: member.key, current: true },
      ],
      total_items: 2,
    });
    expect(table.stdout).not.toMatch(ANSI);
    expect(table.stdout).toMatch(/│ current │ name\s+│ url\s+│ api_key\s+│/);
    expect(table.stdout).toMatch(/│ \*\s+│ member\s+│/);
  });

  it('uses the profile named by --profile or AGORA_PROFILE, else the current one', async () => {
    const [current, byFlag, byEnv, flagOverEnv] = await Promise.all([
      pageNames(home),
      pageNames(home, ['--profile', 'default']),
      pageNames(home, [], { AGORA_PROFILE: 'default' }),
      pageNames(home, ['--profile', 'member'], { AGORA_PROFILE: 'default' }),
    ]);
    expect(current).not.toContain(secretPage.name); // member
    expect(byFlag).toContain(secretPage.name); // admin
    expect(byEnv).toContain(secretPage.name);
    expect(flagOverEnv).not.toContain(secretPage.name);
  });

  it('lets AGORA_API_KEY/AGORA_API_SECRET and AGORA_URL override the stored profile, and --url override them', async () => {
    const adminEnv = { AGORA_API_KEY: server.admin.key, AGORA_API_SECRET: server.admin.secret };
    expect(await pageNames(home, [], adminEnv)).toContain(secretPage.name);
    const dead = 'http://127.0.0.1:9';
    const direct = await runCli(['pages', 'list'], { home, env: { ...adminEnv, AGORA_URL: dead } });
    expect(direct.stderr.split('\n')[0]).toBe(`error: Cannot reach the agora server at ${dead} (ECONNREFUSED)`);
    // A user and password in the URL are not repeated in what is printed.
    const withPassword = await runCli(['pages', 'list'], { home, env: { ...adminEnv, AGORA_URL: 'http://ops:hunter2pw@127.0.0.1:9' } });
    expect(withPassword.stderr.split('\n')[0]).toBe(`error: Cannot reach the agora server at ${dead} (ECONNREFUSED)`);
    // Nor in a URL that is refused before any request: a port out of range, a scheme not http's, on --url or AGORA_URL.
    for (const bad of ['http://ops:hunter2pw@127.0.0.1:99999', 'ftp://ops:hunter2pw@127.0.0.1']) {
      const viaFlag = await runCli(['pages', 'list', '--url', bad], { home, env: adminEnv });
      const viaEnv = await runCli(['login', '--api-key', 'k', '--api-secret', 's'], { home, env: { AGORA_URL: bad } });
      for (const run of [viaFlag, viaEnv]) {
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain('127.0.0.1');
        expect(run.stderr).not.toContain('hunter2pw');
      }
    }

    const [envUrl, flagUrl, halfPair] = await Promise.all([
      runCli(['pages', 'list'], { home, env: { AGORA_URL: dead } }),
      runCli(['pages', 'list', '--url', server.url], { home, env: { AGORA_URL: dead } }),
      runCli(['pages', 'list'], { home, env: { AGORA_API_KEY: server.admin.key } }),
    ]);
    // The stored profiles are for another server: their keys stay home (see 'credentials belong to their server').
    expect(envUrl.code).toBe(4);
    expect(envUrl.stderr).toContain(`No credentials stored for ${dead}`);
    expect(flagUrl.code, flagUrl.stderr).toBe(0);
    // A key from the environment is never paired with the stored profile's secret.
    expect(halfPair.code).toBe(2);
    expect(halfPair.stderr).toContain('AGORA_API_KEY and AGORA_API_SECRET go together');
  });

  it('refuses an unknown profile with exit 2', async () => {
    const result = await runCli(['pages', 'list', '--profile', 'nosuch'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: No profile named "nosuch": run npx agora login --profile nosuch\n');
  });

  it('logout removes the profile and keeps the file private; a profile taking over as the current one is named', async () => {
    const other = freshHome(server);
    expect((await login(other, server.admin)).code).toBe(0);
    const second = await login(other, member, ['--profile', 'member']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/; profile "member" saved, and now the current one \(was "default"\)\n$/);
    const relogin = await login(other, member, ['--profile', 'member']);
    expect(relogin.stdout).toMatch(/; profile "member" saved\n$/);

    const out = await runCli(['logout'], { home: other });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe(`Logged out: profile "member" removed; the current profile is now "default" (${server.url}): npx agora profiles use NAME for another\n`);
    const stored = JSON.parse(readFileSync(credentialsFile(other), 'utf8'));
    expect(Object.keys(stored.profiles)).toEqual(['default']);
    expect(stored.current).toBe('default');
    expect(statSync(credentialsFile(other)).mode & 0o777).toBe(0o600);

    const [again, useIt, list] = await Promise.all([
      runCli(['logout', '--profile', 'member'], { home: other }),
      runCli(['pages', 'list', '--profile', 'member'], { home: other }),
      runCli(['profiles'], { home: other }),
    ]);
    expect(again.code).toBe(2);
    expect(useIt.code).toBe(2);
    expect(list.stdout).toBe(`*\tdefault\t${server.url}\t${server.admin.key}\n`);

    // Logging out of the last profile leaves the client without credentials, and says so.
    const last = await runCli(['logout'], { home: other });
    expect(last.code).toBe(0);
    expect(last.stdout).toBe('Logged out: profile "default" removed; no profile is left (npx agora login)\n');
    const none = await runCli(['pages', 'list'], { home: other });
    expect(none.code).toBe(4);
  });
});

describe('without credentials', () => {
  it('exits 4 with one clear line', async () => {
    const home = freshHome(server);
    const [plain, json] = await Promise.all([
      runCli(['pages', 'list', '--url', server.url], { home }),
      runCli(['users', 'list', '--json', '--url', server.url], { home }),
    ]);
    for (const r of [plain, json]) {
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
    }
    expect(plain.stderr).toBe('error: Not logged in: run npx agora login, or set AGORA_API_KEY and AGORA_API_SECRET\n');
  });

  it('exits 4 when the server refuses the key, whatever the output mode', async () => {
    const env = { AGORA_URL: server.url, AGORA_API_KEY: server.admin.key, AGORA_API_SECRET: 'as_wrong' };
    const [plain, json] = await Promise.all([
      runCli(['pages', 'list'], { home: server.dir, env }),
      runCli(['pages', 'list', '--json'], { home: server.dir, env }),
    ]);
    expect(plain.code).toBe(4);
    expect(plain.stderr).toBe('error: Invalid API key or secret (unauthorized, HTTP 401)\n');
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'unauthorized', message: 'Invalid API key or secret', request_id: expect.any(String) } });
  });

  it('reads a hand-written credentials file too', async () => {
    const home = freshHome(server);
    mkdirSync(join(home, '.config', 'agora'), { recursive: true });
    writeFileSync(
      credentialsFile(home),
      JSON.stringify({ current: 'x', profiles: { x: { url: server.url, api_key: member.key, api_secret: member.secret } } }),
    );
    expect(await pageNames(home)).not.toContain(secretPage.name);
  });
});

describe('credentials belong to their server', () => {
  // The other host: a listener that records what reaches it (it answers nothing the CLI accepts).
  let other: Receiver;
  let otherUrl: string;
  let home: string;
  const elsewhere = { key: 'ak_for_the_other_host', secret: 'as_for_the_other_host' };
  beforeAll(async () => {
    other = await startReceiver();
    otherUrl = new URL(other.url).origin;
    home = freshHome(server);
    expect((await login(home, server.admin)).code).toBe(0);
  });
  afterAll(() => other?.close());
  const sentTo = (from: number) => other.requests.slice(from).map((r) => [r.headers['api-key'], r.headers['api-secret']]);

  it("--url or AGORA_URL naming another server sends it no stored key: exit 4 naming that server", async () => {
    const before = other.requests.length;
    const [flag, env] = await Promise.all([
      runCli(['pages', 'list', '--url', otherUrl], { home }),
      runCli(['users', 'list', '--json'], { home, env: { AGORA_URL: `${otherUrl}/public-api/v1/` } }),
    ]);
    for (const r of [flag, env]) {
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toBe('');
    }
    expect(flag.stderr).toBe(
      `error: No credentials stored for ${otherUrl} (profile "default" is for ${server.url}): run npx agora login --url ${otherUrl} --profile NAME, or set AGORA_API_KEY and AGORA_API_SECRET\n`,
    );
    expect(JSON.parse(env.stderr).error).toMatchObject({ code: 'not_logged_in', message: expect.stringContaining(`No credentials stored for ${otherUrl}`) });
    expect(other.requests.length).toBe(before);
    // --profile names a key stored for the first server: it is not sent to the other one either.
    const named = await runCli(['pages', 'list', '--profile', 'default', '--url', otherUrl], { home });
    expect(named.code).toBe(4);
    expect(named.stderr).toContain(`Profile "default" is stored for ${server.url}, not ${otherUrl}`);
    expect(other.requests.length).toBe(before);
  });

  it('an address the CLI can tell is none (a lone word, no URL, another scheme) is a usage error (exit 2), before any credentials or request', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [['pages', 'list', '--url', 'notaurl'], {}, "error: option '--url <url>' argument 'notaurl' is invalid. a lone word is no server's address: write http://notaurl for a host of that name\n"],
      // The mistake a newcomer makes: the webhook's URL given as --url (the server's address), its argument left out.
      [['webhooks', 'add', '--url', 'notaurl', '--event', 'report.created'], {}, "error: option '--url <url>' argument 'notaurl' is invalid. a lone word is no server's address: write http://notaurl for a host of that name\n"],
      [['webhooks', 'add', '--url', `${otherUrl}/hook`, '--event', 'report.created'], {}, 'error: give the webhook URL as the argument: npx agora webhooks add <url> --event … (--url is the address of the agora server)\n'],
      [['pages', 'list', '--url', 'http://exa mple'], {}, "error: option '--url <url>' argument 'http://exa mple' is invalid. not a URL: give the agora server's, e.g. http://127.0.0.1:4010\n"],
      [['pages', 'list', '--url', 'ftp://agora.example.org'], {}, "error: option '--url <url>' argument 'ftp://agora.example.org' is invalid. not an http:// or https:// URL\n"],
      [['pages', 'list'], { AGORA_URL: 'notaurl' }, "error: AGORA_URL=notaurl: a lone word is no server's address: write http://notaurl for a host of that name\n"],
      [['login', '--api-key', 'ak_x', '--api-secret', 'as_x'], { AGORA_URL: 'notaurl' }, "error: AGORA_URL=notaurl: a lone word is no server's address: write http://notaurl for a host of that name\n"],
    ];
    const before = other.requests.length;
    for (const [args, env, stderr] of cases) {
      const result = await runCli(args, { home, env });
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 2, stderr });
    }
    expect(other.requests.length).toBe(before);
    // A host of one word with a port, or written with its scheme, is a server's address (here one with no credentials).
    for (const url of ['agora:4010', 'http://agora']) expect((await runCli(['pages', 'list', '--url', url], { home })).code).toBe(4);
  });

  it("uses the profile stored for the other server, or the environment's pair, and the same server however it is spelt", async () => {
    const both = freshHome(server);
    mkdirSync(join(both, '.config', 'agora'), { recursive: true });
    writeFileSync(
      credentialsFile(both),
      JSON.stringify({
        current: 'here',
        profiles: {
          here: { url: server.url, api_key: server.admin.key, api_secret: server.admin.secret },
          there: { url: `${otherUrl}/`, api_key: elsewhere.key, api_secret: elsewhere.secret },
        },
      }),
    );
    const before = other.requests.length;
    await runCli(['pages', 'list', '--url', otherUrl.replace('http://', '')], { home: both });
    await runCli(['pages', 'list'], { home, env: { AGORA_URL: otherUrl, AGORA_API_KEY: 'ak_from_env', AGORA_API_SECRET: 'as_from_env' } });
    expect(sentTo(before)).toEqual([
      [elsewhere.key, elsewhere.secret],
      ['ak_from_env', 'as_from_env'],
    ]);
    // The first server named without its scheme, with the API's prefix: still its own profile.
    const spelt = await runCli(['pages', 'list', '--json', '--url', `${server.url.replace('http://', '')}/public-api/v1`], { home: both });
    expect(spelt.code, spelt.stderr).toBe(0);
    expect(JSON.parse(spelt.stdout).items.map((p: { name: string }) => p.name)).toContain(secretPage.name);
  });
});
