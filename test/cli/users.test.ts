import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createUser } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { BIN, useServer } from '../helpers/server.js';
import { ANSI, envFor, expectTables, inAllModes, tableAt, tsvRows } from './support.js';

const server = useServer();
let agora: (args: string[], env?: Record<string, string | undefined>) => ReturnType<typeof runCli>;

beforeAll(async () => {
  agora = (args, env = {}) => runCli(args, { home: server.dir, env: { ...envFor(server), ...env } });
});

const tag = () => randomBytes(4).toString('hex');
const userArgs = (nickname: string, email = `${nickname}@example.org`) => [
  'users',
  'create',
  '--first-name',
  'Ada',
  '--last-name',
  'Lovelace',
  '--nickname',
  nickname,
  '--email',
  email,
  '--password',
  'engines42',
  '--accept-conditions',
  '--accept-confidentiality',
];
const countUsers = async (query = '') => ((await call(server, 'GET', `/users${query}`)).body as { total_items: number }).total_items;

describe('users create', () => {
  it('creates a user and prints the record as key<TAB>value lines', async () => {
    const nickname = `ada_${tag()}`;
    const result = await agora(userArgs(nickname));
    expect(result.code, result.stderr).toBe(0);
    const rows = Object.fromEntries(tsvRows(result.stdout).map(([k, v]) => [k, v]));
    const stored = await call(server, 'GET', `/users/${rows.id}`);
    // The one view of a user: every field of the record, and the role's name beside its id.
    const fields = Object.keys(stored.body as object);
    fields.splice(fields.indexOf('permission_set_id') + 1, 0, 'role');
    expect(Object.keys(rows)).toEqual(fields);
    expect(rows).toMatchObject({ nickname, name: 'Ada Lovelace', email: `${nickname}@example.org`, role: 'Members' });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ nickname, first_name: 'Ada', last_name: 'Lovelace' });
  });

  it("prints exactly the API's record with --json", async () => {
    const result = await agora([...userArgs(`grace_${tag()}`), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout) as { id: string };
    expect(created).toEqual((await call(server, 'GET', `/users/${created.id}`)).body);
    expect(created).not.toHaveProperty('password');
  });

  it('reports a taken email with the exact message and code, exit 1, and stores nothing', async () => {
    const existing = await createUser(server);
    const nickname = `dup_${tag()}`;
    const [plain, json] = await Promise.all([
      agora(userArgs(nickname, existing.email)),
      agora([...userArgs(nickname, existing.email), '--json']),
    ]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toBe('error: A user already exist with that email (email_taken, HTTP 409)\n');
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'email_taken', message: 'A user already exist with that email', request_id: expect.any(String) } });
    expect(await countUsers(`?nickname=${nickname}`)).toBe(0);
  });

  it('catches bad options before calling the server, naming the flag (exit 2)', async () => {
    const nickname = `bad_${tag()}`;
    const noConsent = userArgs(nickname).filter((a) => a !== '--accept-conditions');
    const weak = userArgs(nickname).map((a) => (a === 'engines42' ? 'short' : a));
    const [missing, consent, password, email] = await Promise.all([
      agora(userArgs(nickname).filter((a, i, all) => a !== '--email' && all[i - 1] !== '--email')),
      agora(noConsent),
      agora(weak),
      agora(userArgs(nickname, 'not-an-email')),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: missing --email (asked for on a terminal; required otherwise)\n');
    expect(consent.code).toBe(2);
    expect(consent.stderr).toBe('error: missing --accept-conditions (asked for on a terminal; required otherwise)\n');
    expect(password.code).toBe(2);
    expect(password.stderr).toBe(
      'error: --password must be at least 8 characters and contain at least one letter and one digit\n',
    );
    expect(email.code).toBe(2);
    expect(email.stderr).toBe('error: --email must be a valid email address\n');
    expect(await countUsers(`?nickname=${nickname}`)).toBe(0);
  });

  it('takes the password from AGORA_USER_PASSWORD when the flag is left out', async () => {
    const nickname = `env_${tag()}`;
    const args = userArgs(nickname).filter((a, i, all) => a !== '--password' && all[i - 1] !== '--password');
    const result = await agora(args, { AGORA_USER_PASSWORD: 'from-env-99' });
    expect(result.code, result.stderr).toBe(0);
    expect(await countUsers(`?nickname=${nickname}`)).toBe(1);
  });
});

describe('users list and get', () => {
  let ada: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    ada = await createUser(server, { first_name: 'Ada', last_name: 'Byron', nickname: `ada_${tag()}` });
  });

  it('lists users in TSV, JSON and table form', async () => {
    const modes = await inAllModes(server, ['users', 'list', '--per-page', '100']);
    const rows = tsvRows(modes.tsv.stdout);
    const api = (await call(server, 'GET', '/users?per_page=100')).body as { items: { id: string }[]; total_items: number };
    expect(rows.map((r) => r[0])).toEqual(api.items.map((u) => u.id));
    for (const row of rows) expect(row).toHaveLength(6);
    expect(rows.find((r) => r[0] === ada.id)).toEqual([ada.id, ada.nickname, 'Ada Byron', ada.email, expect.any(String), '']);
    expect(rows[0]).not.toContain('nickname'); // no header

    expect(JSON.parse(modes.json.stdout)).toEqual(api);
    expectTables(modes, ['id', 'nickname', 'name', 'email', 'role', 'suspended']);
    expect(modes.noColor.stdout).toContain(ada.nickname);
    expect(modes.noColor.stdout).toContain(`1–${api.items.length} of ${api.total_items}`);
  });

  it('shows until when each suspended user is suspended, to the day, at 80 columns (leaving out the role first)', async () => {
    const [long, lifted] = [
      await createUser(server, { first_name: 'Spammer', last_name: 'Of Many Names', nickname: `sp_${tag()}` }),
      await createUser(server, { first_name: 'Troll', last_name: 'Under The Bridge', nickname: `tr_${tag()}` }),
    ];
    for (const [user, until] of [[long, '2030-06-01'], [lifted, undefined]] as const)
      expect((await call(server, 'PUT', `/users/${user.id}/suspension`, { body: { reason: 'spam', ...(until ? { until } : {}) } })).status).toBe(200);
    const { head, rows, left } = await tableAt(80, ['users', 'list', '--suspended'], server);
    expect(head).toEqual(['id', 'nickname', 'name', 'email', 'suspended']);
    expect(left).toBe('role');
    expect(rows.map((r) => r[4])).toEqual(['until 2030-06-01', 'until lifted']);
    for (const user of [long, lifted]) await call(server, 'DELETE', `/users/${user.id}/suspension`);
  });

  it('filters by exact nickname and paginates like the API', async () => {
    const [exact, prefix, second] = await Promise.all([
      agora(['users', 'list', '--nickname', ada.nickname]),
      agora(['users', 'list', '--nickname', ada.nickname.slice(0, -1)]),
      agora(['users', 'list', '--per-page', '1', '--page', '2', '--json']),
    ]);
    expect(tsvRows(exact.stdout).map((r) => r[0])).toEqual([ada.id]);
    expect(prefix.code).toBe(0);
    expect(prefix.stdout).toBe('');
    expect(JSON.parse(second.stdout)).toEqual((await call(server, 'GET', '/users?per_page=1&page=2')).body);
  });

  it('shows one user in TSV, JSON and table form', async () => {
    const modes = await inAllModes(server, ['users', 'get', ada.id]);
    const api = (await call(server, 'GET', `/users/${ada.id}`)).body as Record<string, unknown>;
    expect(JSON.parse(modes.json.stdout)).toEqual(api);
    const rows = tsvRows(modes.tsv.stdout);
    const fields = Object.keys(api);
    fields.splice(fields.indexOf('permission_set_id') + 1, 0, 'role');
    expect(rows.map((r) => r[0])).toEqual(fields);
    expect(Object.fromEntries(rows)).toMatchObject({ id: ada.id, nickname: ada.nickname, tagline: '', role: 'Members' });
    expect(modes.table.stdout).toMatch(ANSI);
    expect(modes.noColor.stdout).not.toMatch(ANSI);
    expect(modes.noColor.stdout).toMatch(new RegExp(`│ nickname\\s+│ ${ada.nickname}\\s+│`));
  });

  it('answers an unknown id with exit 1 and the API error', async () => {
    const [plain, json] = await Promise.all([
      agora(['users', 'get', 'ffffffffffffffffffffffffffffffff']),
      agora(['users', 'get', 'ffffffffffffffffffffffffffffffff', '--json']),
    ]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe('error: User not found (not_found, HTTP 404)\n');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'not_found', message: 'User not found', request_id: expect.any(String) } });
  });

  it('rejects bad usage with exit 2 before any request', async () => {
    const dead = { AGORA_URL: 'http://127.0.0.1:9' };
    const [unknown, tooMany, zero, noId, extra] = await Promise.all([
      agora(['users', 'list', '--bogus'], dead),
      agora(['users', 'list', '--per-page', '101'], dead),
      agora(['users', 'list', '--page', '0'], dead),
      agora(['users', 'get'], dead),
      agora(['users', 'get', 'a', 'b'], dead),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("error: unknown option '--bogus'\n");
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toBe(
      "error: option '--per-page <n>' argument '101' is invalid. must be a whole number from 1 to 100\n",
    );
    expect(zero.code).toBe(2);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toBe("error: missing required argument 'user'\n");
    expect(extra.code).toBe(2);
    for (const r of [unknown, tooMany, zero, noId, extra]) expect(r.stdout).toBe('');
  });

  it('accepts --per-page 100, the largest page', async () => {
    const result = await agora(['users', 'list', '--per-page', '100', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).items.length).toBeGreaterThan(1);
  });
});

describe('page-configs', () => {
  it('creates a configuration and shows it in every mode', async () => {
    const name = `Clubs ${tag()}`;
    const created = await agora(['page-configs', 'create', '--name', name, '--description', 'Local clubs', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const config = JSON.parse(created.stdout) as { id: string; name: string; description: string };
    expect(config).toMatchObject({ name, description: 'Local clubs' });

    const [get, list] = await Promise.all([
      inAllModes(server, ['page-configs', 'get', config.id]),
      inAllModes(server, ['page-configs', 'list', '--per-page', '100']),
    ]);
    expect(JSON.parse(get.json.stdout)).toEqual(config);
    expect(Object.fromEntries(tsvRows(get.tsv.stdout))).toMatchObject({ id: config.id, name, description: 'Local clubs' });
    expect(get.noColor.stdout).toMatch(new RegExp(`│ name\\s+│ ${name}\\s+│`));

    expect(JSON.parse(list.json.stdout)).toEqual((await call(server, 'GET', '/page_configurations?per_page=100')).body);
    expect(tsvRows(list.tsv.stdout)).toContainEqual([config.id, name, 'Local clubs']);
    expectTables(list, ['id', 'name', 'description']);
  });

  it('requires --name (exit 2) and reports an unknown id (exit 1)', async () => {
    const [noName, unknown] = await Promise.all([
      agora(['page-configs', 'create', '--description', 'x']),
      agora(['page-configs', 'get', 'ffffffffffffffffffffffffffffffff']),
    ]);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toBe('error: missing --name (asked for on a terminal; required otherwise)\n');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/\(not_found, HTTP 404\)\n$/);
  });

  it('refuses a member who is not an administrator (exit 1, forbidden)', async () => {
    const { creds } = await import('../helpers/api.js').then((m) => m.createUserWithKey(server));
    const result = await runCli(['page-configs', 'create', '--name', 'Nope'], {
      home: server.dir,
      env: envFor(server, creds),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+ \(forbidden, HTTP 403\)\n$/);
  });
});

describe('permissions show', () => {
  it("shows a visitor's permissions without --user, in every mode", async () => {
    const modes = await inAllModes(server, ['permissions', 'show']);
    const api = (await call(server, 'GET', '/permissions')).body as Record<string, Record<string, boolean>>;
    expect(JSON.parse(modes.json.stdout)).toEqual(api);
    const rows = tsvRows(modes.tsv.stdout);
    const expected = Object.entries(api).flatMap(([category, actions]) =>
      Object.entries(actions).map(([action, allowed]) => [category, action, String(allowed)]),
    );
    expect(rows).toEqual(expected);
    expect(rows).toContainEqual(['users', 'can_use_api', 'false']);
    expectTables(modes, ['category', 'action', 'allowed']);
    expect(modes.noColor.stdout).toMatch(/│ users\s+│ can_use_api\s+│ no\s+│/);
  });

  it("shows a user's permissions with --user", async () => {
    const me = (await call(server, 'GET', '/me')).body as { id: string };
    const member = await createUser(server);
    const [admin, plain, json] = await Promise.all([
      agora(['permissions', 'show', '--user', me.id]),
      agora(['permissions', 'show', '--user', member.id]),
      agora(['permissions', 'show', '--user', member.id, '--json']),
    ]);
    expect(tsvRows(admin.stdout)).toContainEqual(['users', 'can_use_api', 'true']);
    expect(tsvRows(admin.stdout).every((r) => r[2] === 'true')).toBe(true);
    expect(tsvRows(plain.stdout)).toContainEqual(['users', 'can_use_api', 'true']);
    expect(tsvRows(plain.stdout)).toContainEqual(['users', 'edit_roles', 'false']);
    expect(JSON.parse(json.stdout)).toEqual((await call(server, 'GET', `/permissions?user_id=${member.id}`)).body);
  });

  it('stops quietly when the reader of a pipe is gone (| head, | true)', () => {
    // `true` exits before the CLI writes a byte, so every write meets a closed pipe.
    const run = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" permissions show | true`], {
      env: { ...process.env, ...envFor(server), HOME: server.dir },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // Help too, which commander writes itself.
    const help = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" events --help | true`], { encoding: 'utf8' });
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
  });

  it('reports an unknown user with exit 1', async () => {
    const result = await agora(['permissions', 'show', '--user', 'ffffffffffffffffffffffffffffffff']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: User not found (not_found, HTTP 404)\n');
  });
});
