import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer, type Credentials } from '../helpers/server.js';
import { envFor, expectTables, inAllModes, tsvRows } from './support.js';

const server = useServer();
let adminId: string;
let config: { id: string; name: string };
let member: { user: { id: string; nickname: string }; creds: Credentials };

const agora = (args: string[], env: Record<string, string | undefined> = {}, creds?: Credentials) =>
  runCli(args, { home: server.dir, env: { ...envFor(server, creds), ...env } });
const tag = () => randomBytes(4).toString('hex');
const DEAD = { AGORA_URL: 'http://127.0.0.1:9' };

beforeAll(async () => {
  adminId = ((await call(server, 'GET', '/me')).body as { id: string }).id;
  config = await createPageConfiguration(server);
  member = await createUserWithKey(server);
});

type Page = { id: string; name: string; privacy: string; user_id: string };
const newPage = async (fields: { privacy?: string; name?: string }) =>
  (await createPage(server, { user_id: adminId, page_configuration_id: config.id, ...fields })) as unknown as Page;

describe('pages create', () => {
  it('creates a page for the caller by default and prints the record', async () => {
    const name = `Garden ${tag()}`;
    const result = await agora(['pages', 'create', '--name', name, '--config', config.id, '--privacy', 'public']);
    expect(result.code, result.stderr).toBe(0);
    const record = Object.fromEntries(tsvRows(result.stdout));
    expect(record).toMatchObject({ name, privacy: 'public', page_configuration_id: config.id, user_id: adminId });
    expect((await call(server, 'GET', `/pages/${record.id}`)).status).toBe(200);
  });

  it("acts for the user named by --user and prints the API's JSON with --json", async () => {
    const result = await agora([
      'pages',
      'create',
      '--name',
      `Books ${tag()}`,
      '--config',
      config.id,
      '--privacy',
      'private',
      '--user',
      member.user.id,
      '--description',
      'Monthly reading',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const page = JSON.parse(result.stdout) as Page;
    expect(page).toMatchObject({ privacy: 'private', user_id: member.user.id, description: 'Monthly reading' });
    expect(page).toEqual((await call(server, 'GET', `/pages/${page.id}`)).body);
  });

  it('catches a bad --privacy client-side, naming the flag, before any request', async () => {
    const before = ((await call(server, 'GET', '/pages')).body as { total_items: number }).total_items;
    const base = ['pages', 'create', '--name', 'Nope', '--config', config.id];
    // The server is out of reach: only a check made on the client can answer these.
    const [bad, missing, emptyName] = await Promise.all([
      agora([...base, '--privacy', 'hidden'], DEAD),
      agora(base, DEAD),
      agora(['pages', 'create', '--name', ' ', '--config', config.id, '--privacy', 'public'], DEAD),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "error: option '--privacy <privacy>' argument 'hidden' is invalid. Allowed choices are public, private, secret.\n",
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: missing --privacy (asked for on a terminal; required otherwise)\n');
    expect(emptyName.code).toBe(2);
    expect(emptyName.stderr).toBe('error: --name must not be empty\n');
    expect(((await call(server, 'GET', '/pages')).body as { total_items: number }).total_items).toBe(before);
  });

  it('reports an unknown page configuration as an API failure (exit 1)', async () => {
    const result = await agora(['pages', 'create', '--name', 'X', '--config', 'ffffffffffffffffffffffffffffffff', '--privacy', 'public']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+ \(not_found, HTTP 404\)\n$/);
  });
});

describe('pages list and get', () => {
  let pub: Page;
  let secret: Page;
  beforeAll(async () => {
    pub = await newPage({ name: `Open ${tag()}` });
    secret = await newPage({ privacy: 'secret', name: `Hidden ${tag()}` });
  });

  it('lists pages in TSV, JSON and table form', async () => {
    const modes = await inAllModes(server, ['pages', 'list', '--per-page', '100']);
    const api = (await call(server, 'GET', '/pages?per_page=100')).body as { items: Page[]; total_items: number };
    expect(JSON.parse(modes.json.stdout)).toEqual(api);
    const rows = tsvRows(modes.tsv.stdout);
    expect(rows.map((r) => r[0])).toEqual(api.items.map((p) => p.id));
    // Names where ids were: the configuration's name and the owner's nickname.
    expect(rows).toContainEqual([pub.id, pub.name, expect.any(String), 'public', config.name, 'admin']);
    expectTables(modes, ['id', 'name', 'slug', 'privacy', 'config', 'owner']);
    expect(modes.noColor.stdout).toContain(secret.name);
  });

  it('filters by privacy, owner and configuration, and hides secret pages from non-members', async () => {
    const [secrets, byMember, asMember, byConfig] = await Promise.all([
      agora(['pages', 'list', '--privacy', 'secret', '--per-page', '100']),
      agora(['pages', 'list', '--owner', member.user.id, '--json']),
      agora(['pages', 'list', '--per-page', '100'], {}, member.creds),
      agora(['pages', 'list', '--config', config.id, '--json', '--per-page', '100']),
    ]);
    const secretRows = tsvRows(secrets.stdout);
    expect(secretRows.map((r) => r[0])).toContain(secret.id);
    expect(secretRows.every((r) => r[3] === 'secret')).toBe(true);
    expect(JSON.parse(byMember.stdout)).toEqual((await call(server, 'GET', `/pages?owner=${member.user.id}`)).body);
    expect(tsvRows(asMember.stdout).map((r) => r[0])).toContain(pub.id);
    expect(tsvRows(asMember.stdout).map((r) => r[0])).not.toContain(secret.id);
    expect((JSON.parse(byConfig.stdout) as { items: Page[] }).items.map((p) => p.id)).toEqual(
      expect.arrayContaining([pub.id, secret.id]),
    );
  });

  it('paginates: --page and --per-page, with the position shown under the table', async () => {
    const total = ((await call(server, 'GET', '/pages')).body as { total_items: number }).total_items;
    const [json, tsv] = await Promise.all([
      agora(['pages', 'list', '--per-page', '1', '--page', '2', '--json']),
      agora(['pages', 'list', '--per-page', '1', '--page', '2']),
    ]);
    expect(JSON.parse(json.stdout)).toEqual((await call(server, 'GET', '/pages?per_page=1&page=2')).body);
    expect(tsvRows(tsv.stdout)).toHaveLength(1);
    const table = await inAllModes(server, ['pages', 'list', '--per-page', '1', '--page', '2']);
    expect(table.noColor.stdout).toContain(`2–2 of ${total} (page 2 of ${total}; --page for more, --all for every one)`);
  });

  it('rejects a bad --privacy filter and --per-page 101 client-side (exit 2)', async () => {
    const [privacy, perPage] = await Promise.all([
      agora(['pages', 'list', '--privacy', 'hidden'], DEAD),
      agora(['pages', 'list', '--per-page', '101'], DEAD),
    ]);
    expect(privacy.code).toBe(2);
    expect(privacy.stderr).toBe(
      "error: option '--privacy <privacy>' argument 'hidden' is invalid. Allowed choices are public, private, secret.\n",
    );
    expect(perPage.code).toBe(2);
    expect(perPage.stderr).toContain("'--per-page <n>' argument '101' is invalid");
  });

  it('shows one page in TSV, JSON and table form', async () => {
    const modes = await inAllModes(server, ['pages', 'get', pub.id]);
    const api = (await call(server, 'GET', `/pages/${pub.id}`)).body as Record<string, unknown>;
    expect(JSON.parse(modes.json.stdout)).toEqual(api);
    // Every field of the record, with the configuration's name and the owner's nickname beside their ids.
    const fields = Object.keys(api);
    fields.splice(fields.indexOf('page_configuration_id') + 1, 0, 'configuration');
    fields.splice(fields.indexOf('user_id') + 1, 0, 'owner');
    expect(tsvRows(modes.tsv.stdout).map((r) => r[0])).toEqual(fields);
    expect(Object.fromEntries(tsvRows(modes.tsv.stdout))).toMatchObject({
      id: pub.id,
      name: pub.name,
      description: '',
      configuration: config.name,
      owner: 'admin',
    });
    expect(modes.noColor.stdout).toMatch(new RegExp(`│ name\\s+│ ${pub.name}\\s+│`));
    expect(modes.noColor.stdout).toMatch(/│ description\s+│ -\s+│/);
  });

  it('answers a secret page to a non-member, and an unknown id, with exit 1 not_found', async () => {
    const [hidden, unknown, json] = await Promise.all([
      agora(['pages', 'get', secret.id], {}, member.creds),
      agora(['pages', 'get', 'ffffffffffffffffffffffffffffffff']),
      agora(['pages', 'get', secret.id, '--json'], {}, member.creds),
    ]);
    for (const r of [hidden, unknown, json]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    }
    expect(hidden.stderr).toMatch(/\(not_found, HTTP 404\)\n$/);
    expect(unknown.stderr).toBe(hidden.stderr);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('follows', () => {
  let page: Page;
  let privatePage: Page;
  beforeAll(async () => {
    page = await newPage({ name: `Club ${tag()}` });
    privatePage = await newPage({ privacy: 'private' });
  });

  it('follows a page for a user, lists it in every mode, and unfollows', async () => {
    const created = await agora(['follows', 'create', '--type', 'page', '--id', page.id, '--user', member.user.id, '--json']);
    expect(created.code, created.stderr).toBe(0);
    const follow = JSON.parse(created.stdout) as { id: string; user_id: string; followable_type: string };
    expect(follow).toMatchObject({ user_id: member.user.id, followable_type: 'Page', followable_id: page.id });

    const modes = await inAllModes(server, ['follows', 'list', '--user', member.user.id]);
    expect(JSON.parse(modes.json.stdout)).toEqual((await call(server, 'GET', `/follows?user_id=${member.user.id}`)).body);
    expect(tsvRows(modes.tsv.stdout)).toContainEqual([follow.id, member.user.nickname, 'Page', page.id, page.name]);
    expectTables(modes, ['id', 'user', 'type', 'followed', 'followed name']);

    const [again, againJson] = await Promise.all([
      agora(['follows', 'create', '--type', 'Page', '--id', page.id, '--user', member.user.id]),
      agora(['follows', 'create', '--type', 'Page', '--id', page.id, '--user', member.user.id, '--json']),
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: .+ \(already_following, HTTP 409\)\n$/);
    expect(againJson.code).toBe(1);
    expect(JSON.parse(againJson.stderr)).toMatchObject({ error: { code: 'already_following' } });

    // Without a terminal nothing asks; --yes says the same on one.
    const deleted = await agora(['follows', 'delete', follow.id, '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Follow ${follow.id} deleted\n`);
    const left = (await call(server, 'GET', `/follows?user_id=${member.user.id}&followable_id=${page.id}`)).body;
    expect(left).toEqual({ items: [], total_items: 0 });

    const twice = await agora(['follows', 'delete', follow.id]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/\(not_found, HTTP 404\)\n$/);
  });

  it('follows as the caller when --user is left out, and a user too', async () => {
    const result = await agora(['follows', 'create', '--type', 'User', '--id', adminId], {}, member.creds);
    expect(result.code, result.stderr).toBe(0);
    const record = Object.fromEntries(tsvRows(result.stdout));
    expect(record).toMatchObject({ user_id: member.user.id, followable_type: 'User', followable_id: adminId });
    const listed = await agora(['follows', 'list', '--type', 'user', '--id', adminId]);
    expect(tsvRows(listed.stdout).map((r) => r[0])).toContain(record.id);
    expect(tsvRows(listed.stdout).every((r) => r[2] === 'User')).toBe(true);
  });

  it("refuses a non-member's follow of a private page with access_request_required (exit 1)", async () => {
    const result = await agora(['follows', 'create', '--type', 'Page', '--id', privatePage.id], {}, member.creds);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\(access_request_required, HTTP 403\)\n$/);
  });

  it('rejects a bad --type client-side on create and list (exit 2)', async () => {
    const [create, list, missing] = await Promise.all([
      agora(['follows', 'create', '--type', 'Group', '--id', page.id], DEAD),
      agora(['follows', 'list', '--type', 'Group'], DEAD),
      agora(['follows', 'create', '--type', 'Page'], DEAD),
    ]);
    expect(create.code).toBe(2);
    expect(create.stderr).toBe("error: option '--type <type>' argument 'Group' is invalid. must be one of: Page, User\n");
    expect(list.code).toBe(2);
    expect(list.stderr).toBe("error: option '--type <type>' argument 'Group' is invalid. must be one of: Page, User\n");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: missing --id (asked for on a terminal; required otherwise)\n');
  });
});
