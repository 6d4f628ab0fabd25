import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser, createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty, type CliResult } from '../helpers/cli.js';
import { removeDir, startServer, type Credentials, type RunningServer } from '../helpers/server.js';
import { envFor, stripAnsi, tableAt, tsvRows } from './support.js';

/**
 * The issue-3 command groups (roles, users set-role, access-requests, invites, webhooks) through the real
 * binary against a real server: exit codes, TSV without a TTY, `--json` equal to the API's JSON, the
 * confirmation prompt at a terminal, and the API's errors on stderr.
 */

type User = { id: string; nickname: string; [k: string]: unknown };
type Page = Awaited<ReturnType<typeof createPage>> & { name: string };
type Received = { headers: IncomingHttpHeaders; body: string };

const tag = () => randomBytes(4).toString('hex');
const UNKNOWN_ID = 'f'.repeat(32);

let server: RunningServer;
let member: { user: User; creds: Credentials };
let adminId: string;
let configId: string;

/** A loopback receiver for webhook deliveries, started by the test. */
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  server = await startServer({ env: { AGORA_WEBHOOKS_ALLOW_PRIVATE: '1' } });
  const [created, config, me] = await Promise.all([
    createUserWithKey(server),
    createPageConfiguration(server),
    call(server, 'GET', '/me'),
  ]);
  member = created;
  configId = config.id;
  adminId = me.body.id;
});
afterAll(async () => {
  await server.stop();
  await new Promise((ok) => receiver.close(ok));
  removeDir(server.dir);
});

/** The CLI with a key pair given through the environment (the administrator's unless told). */
const cli = (args: string[], creds: Credentials = server.admin) => runCli(args, { home: server.dir, env: envFor(server, creds) });
const tty = (args: string[], options: { answers?: { when: RegExp; send: string }[] } = {}) =>
  runCliTty(args, { home: server.dir, env: { ...envFor(server), NO_COLOR: '1' }, ...options });

function expectOk(result: CliResult): CliResult {
  expect(result.code, `stderr: ${result.stderr}\nstdout: ${result.stdout}`).toBe(0);
  return result;
}

/** Runs with `--json`, expects success, parses stdout. */
async function cliJson<T = any>(args: string[], creds?: Credentials): Promise<T> {
  const result = expectOk(await cli([...args, '--json'], creds));
  return JSON.parse(result.stdout) as T;
}

/** A record printed without a TTY: one `field<TAB>value` line per field. */
function tsvRecord(stdout: string): Record<string, string> {
  const rows = tsvRows(stdout);
  for (const row of rows) expect(row.length).toBe(2);
  return Object.fromEntries(rows.map(([k, v]) => [k!, v ?? '']));
}

/** The API's answer, which the CLI's `--json` must equal. */
async function api(path: string, as?: Credentials) {
  const res = await call(server, 'GET', path, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Fails with exit 1, the API's message and code on stderr, nothing on stdout. */
function expectApiFailure(result: CliResult, message: string, code: string, status: number): void {
  expect(result.code, result.stdout).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(`error: ${message} (${code}, HTTP ${status})\n`);
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 8_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const newPage = (privacy: string) =>
  createPage(server, { user_id: adminId, page_configuration_id: configId, privacy }) as Promise<Page>;

describe('agora roles and users set-role', () => {
  it('lists the roles as TSV rows and as the API JSON', async () => {
    const [tsv, json, body] = await Promise.all([
      cli(['roles', 'list']),
      cliJson(['roles', 'list']),
      api('/permission_sets?page=1&per_page=25'),
    ]);
    expectOk(tsv);
    expect(json).toEqual(body);
    expect(tsvRows(tsv.stdout)).toEqual(
      body.items.map((s: any) => [s.id, s.name, String(s.show_as_tagline), String(s.is_default)]),
    );
    expect(body.items.map((s: any) => s.name)).toEqual(expect.arrayContaining(['Admins', 'Members', 'Visitors']));
  });

  it('gets a role by name (whatever the case) and by id', async () => {
    const members = (await api('/permission_sets?per_page=100')).items.find((s: any) => s.name === 'Members');
    const [byName, byId, json, unknown] = await Promise.all([
      cli(['roles', 'get', 'members']),
      cli(['roles', 'get', members.id]),
      cliJson(['roles', 'get', 'Members']),
      cli(['roles', 'get', 'Nobody-has-this-role']),
    ]);
    expect(json).toEqual(await api(`/permission_sets/${members.id}`));
    expectOk(byName);
    expect(byId.stdout).toBe(byName.stdout);
    const record = tsvRecord(byName.stdout);
    expect(record).toMatchObject({ id: members.id, name: 'Members', show_as_tagline: 'false', is_default: 'true', image_url: '' });
    expect(record.permissions!.split(' ').sort()).toEqual(
      [
        'users.can_use_api',
        'users.index',
        'users.show',
        ...['index', 'show', 'create', 'edit', 'destroy'].flatMap((a) => [`posts.${a}`, `statuses.${a}`]),
      ].sort(),
    );

    // A name that matches nothing is looked up like an id that matches nothing: exit 1.
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('error: No role with the id or name "Nobody-has-this-role"\n');
  });

  it('creates, updates, assigns and deletes a role', async () => {
    const name = `Moderators-${tag()}`;
    const created = tsvRecord(
      expectOk(
        await cli([
          'roles',
          'create',
          '--name',
          name,
          '--allow',
          'users.index',
          '--allow',
          'users.can_use_api',
          '--tagline',
          '--image-url',
          'https://img.example.org/mod.png',
        ]),
      ).stdout,
    );
    expect(created).toMatchObject({ name, show_as_tagline: 'true', is_default: 'false', image_url: 'https://img.example.org/mod.png' });
    expect(created.permissions!.split(' ').sort()).toEqual(['users.can_use_api', 'users.index']);
    const id = created.id!;
    const stored = await api(`/permission_sets/${id}`);
    expect(stored).toMatchObject({ name, show_as_tagline: true, image_url: 'https://img.example.org/mod.png' });
    const granted = Object.entries(stored.permissions).flatMap(([c, actions]) =>
      Object.entries(actions as Record<string, boolean>).filter(([, on]) => on).map(([a]) => `${c}.${a}`),
    );
    expect(granted.sort()).toEqual(['users.can_use_api', 'users.index']);
    expect(await cliJson(['roles', 'get', name])).toEqual(stored);

    // Update by name: only the named actions change.
    const updated = await cliJson(['roles', 'update', name.toLowerCase(), '--deny', 'users.index', '--allow', 'posts.moderate']);
    expect(updated).toEqual(await api(`/permission_sets/${id}`));
    expect(updated.permissions.users).toMatchObject({ index: false, can_use_api: true });
    expect(updated.permissions.posts.moderate).toBe(true);
    expect(updated).toMatchObject({ show_as_tagline: true, image_url: 'https://img.example.org/mod.png' });

    // users set-role, by the role's name, then by its id.
    const user = await createUser(server);
    const byName = tsvRecord(expectOk(await cli(['users', 'set-role', user.id, '--role', name])).stdout);
    expect(byName).toMatchObject({
      id: user.id,
      permission_set_id: id,
      role: name,
      // A nested record shows by its name.
      tagline: name,
    });
    expect((await api(`/users/${user.id}`)).permission_set_id).toBe(id);

    // A role in use cannot be deleted.
    expectApiFailure(
      await cli(['roles', 'delete', name, '--yes']),
      'This permission set is the role of 1 user(s): give them another role first',
      'permission_set_in_use',
      409,
    );
    expect((await api(`/permission_sets/${id}`)).id).toBe(id);

    const members = (await api('/permission_sets?per_page=100')).items.find((s: any) => s.name === 'Members');
    const byId = await cliJson(['users', 'set-role', user.id, '--role', members.id]);
    expect(byId).toEqual(await api(`/users/${user.id}`));
    expect(byId).toMatchObject({ permission_set_id: members.id, tagline: null });

    // Not on a TTY, delete goes ahead without --yes.
    const deleted = expectOk(await cli(['roles', 'delete', name]));
    expect(deleted.stdout).toBe(`Role ${name} deleted\n`);
    expect((await call(server, 'GET', `/permission_sets/${id}`)).status).toBe(404);
  });

  it('deletes by id with --yes, and with --json prints the id and what became of it (the API answers 204 without a body)', async () => {
    const set = (await call(server, 'POST', '/permission_sets', { body: { name: `Temp-${tag()}` } })).body;
    const other = (await call(server, 'POST', '/permission_sets', { body: { name: `Temp-${tag()}` } })).body;
    const [yes, json] = await Promise.all([
      cli(['roles', 'delete', set.id, '--yes']),
      cli(['roles', 'delete', other.id, '--yes', '--json']),
    ]);
    expect(expectOk(yes).stdout).toBe(`Role ${set.id} deleted\n`);
    expect(JSON.parse(expectOk(json).stdout)).toEqual({ id: other.id, result: 'deleted' });
    for (const s of [set, other]) expect((await call(server, 'GET', `/permission_sets/${s.id}`)).status).toBe(404);
  });

  it('refuses bad options with exit 2 and creates nothing', async () => {
    const name = `Bad-${tag()}`;
    const [noDot, unknownAction, unknownCategory] = await Promise.all([
      cli(['roles', 'create', '--name', name, '--allow', 'fly']),
      cli(['roles', 'create', '--name', name, '--allow', 'users.fly']),
      cli(['roles', 'create', '--name', name, '--allow', 'pages.index']),
    ]);
    for (const r of [noDot, unknownAction, unknownCategory]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(noDot.stderr).toContain('must be category.action, e.g. users.index');
    expect(unknownAction.stderr).toMatch(/^error: --allow unknown users action "fly" \(known: edit, destroy, .*can_use_api\)\n$/);
    expect(unknownCategory.stderr).toBe('error: --allow unknown permission category "pages" (known: posts, users, statuses)\n');
    expect((await api('/permission_sets?per_page=100')).items.map((s: any) => s.name)).not.toContain(name);
  });

  it('reports API refusals: exit 1 with the message, or the error body with --json', async () => {
    const [duplicate, defaultSet, defaultSetJson, asMember, setRoleAsMember] = await Promise.all([
      cli(['roles', 'create', '--name', 'Members']),
      cli(['roles', 'delete', 'Visitors', '--yes']),
      cli(['roles', 'delete', 'Visitors', '--yes', '--json']),
      cli(['roles', 'create', '--name', `Sneaky-${tag()}`], member.creds),
      cli(['users', 'set-role', member.user.id, '--role', 'Admins'], member.creds),
    ]);
    expectApiFailure(duplicate, 'A permission set already exists with that name', 'conflict', 409);
    expectApiFailure(
      defaultSet,
      'Visitors is a default permission set: it can be edited, not deleted',
      'default_permission_set',
      409,
    );
    expect(defaultSetJson.code).toBe(1);
    expect(defaultSetJson.stdout).toBe('');
    const visitors = (await api('/permission_sets?per_page=100')).items.find((s: any) => s.name === 'Visitors');
    // The same error body, each with the id of its own request.
    const direct = (await call(server, 'DELETE', `/permission_sets/${visitors.id}`)).body;
    expect(JSON.parse(defaultSetJson.stderr)).toEqual({ error: { ...direct.error, request_id: expect.stringMatching(/^[0-9a-f]{32}$/) } });
    expect(JSON.parse(defaultSetJson.stderr).error.request_id).not.toBe(direct.error.request_id);
    expectApiFailure(asMember, 'Your role does not grant the permission users.add_roles', 'forbidden', 403);
    expect(setRoleAsMember.code).toBe(1);
    expect(setRoleAsMember.stderr).toMatch(/\(forbidden, HTTP 403\)\n$/);
    expect((await api(`/users/${member.user.id}`)).permission_set_id).not.toBe(
      (await api('/permission_sets?per_page=100')).items.find((s: any) => s.name === 'Admins').id,
    );
  });
});

describe('agora access-requests', () => {
  it('prints several records of one run, piped, a blank line between each two', async () => {
    const [one, two] = await Promise.all([newPage('private'), newPage('private')]);
    const alice = await createUser(server);
    const ids: string[] = [];
    for (const page of [one, two]) ids.push(tsvRecord(expectOk(await cli(['access-requests', 'create', '--page-id', page.id, '--user', alice.id])).stdout).id!);
    const out = expectOk(await cli(['access-requests', 'accept', ...ids])).stdout;
    const blocks = out.trimEnd().split('\n\n');
    expect(blocks.map((block) => tsvRecord(`${block}\n`))).toEqual(ids.map((id) => expect.objectContaining({ id, state: 'accepted' })));
  });

  it('creates, lists with filters, accepts and refuses', async () => {
    const page = await newPage('private');
    const alice = await createUser(server);

    // For another user (an administrator acts for anyone), and for oneself by default.
    const [forAlice, ownJson] = await Promise.all([
      cli(['access-requests', 'create', '--page-id', page.id, '--user', alice.id]),
      cli(['access-requests', 'create', '--page-id', page.id, '--json'], member.creds),
    ]);
    const created = tsvRecord(expectOk(forAlice).stdout);
    expect(created).toMatchObject({ page: page.name, user: alice.nickname, state: 'waiting' });
    expect(created.id).toMatch(/^[0-9a-f]{32}$/);
    const own = JSON.parse(expectOk(ownJson).stdout);
    expect(own).toMatchObject({ page_id: page.id, user_id: member.user.id, is_validate: false, state: 'waiting' });

    const pageQuery = `/pages/${page.id}/page_access_requests?page=1&per_page=25&state=waiting`;
    const [tsv, json, byUser, body] = await Promise.all([
      cli(['access-requests', 'list', '--state', 'waiting', '--page-id', page.id]),
      cliJson(['access-requests', 'list', '--state', 'waiting', '--page-id', page.id]),
      cliJson(['access-requests', 'list', '--user', alice.id]),
      api(pageQuery),
    ]);
    expect(json).toEqual(body);
    expect(body.total_items).toBe(2);
    expect(tsvRows(expectOk(tsv).stdout)).toEqual(
      body.items.map((r: any) => [r.id, page.name, r.user.nickname, 'waiting', r.created_at]),
    );
    expect(byUser).toEqual(await api(`/page_access_requests?page=1&per_page=25&user_id=${alice.id}`));
    expect(byUser.items.map((r: any) => r.id)).toEqual([created.id]);
    expect(body.items.find((r: any) => r.id === own.id)).toEqual(own);

    // A non-administrator of the page cannot accept: exit 1, the API's message; with --json, its error body.
    const [refused, refusedJson] = await Promise.all([
      cli(['access-requests', 'accept', created.id!], member.creds),
      cli(['access-requests', 'accept', created.id!, '--json'], member.creds),
    ]);
    expectApiFailure(refused, 'Only an administrator of the page can accept or refuse its access requests', 'forbidden', 403);
    expect(refusedJson.code).toBe(1);
    expect(refusedJson.stdout).toBe('');
    expect(JSON.parse(refusedJson.stderr)).toEqual({
      error: {
        code: 'forbidden',
        message: 'Only an administrator of the page can accept or refuse its access requests',
        request_id: expect.any(String),
      },
    });
    expect((await api(pageQuery)).total_items).toBe(2);

    const accepted = tsvRecord(expectOk(await cli(['access-requests', 'accept', created.id!])).stdout);
    expect(accepted).toMatchObject({ id: created.id, state: 'accepted' });
    const acceptedList = await cliJson(['access-requests', 'list', '--state', 'accepted', '--page-id', page.id]);
    expect(acceptedList.items).toEqual([expect.objectContaining({ id: created.id, is_validate: true, state: 'accepted' })]);
    // Alice is a member now: a follow of the page exists.
    const follows = await api(`/follows?user_id=${alice.id}`);
    expect(follows.items.map((f: any) => f.followable_id)).toContain(page.id);
    // Accepting twice is a conflict.
    const twice = await cli(['access-requests', 'accept', created.id!]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/\(already_accepted, HTTP 409\)\n$/);

    const gone = expectOk(await cli(['access-requests', 'refuse', own.id, '--yes']));
    expect(gone.stdout).toBe(`Access request ${own.id} refused and deleted\n`);
    expect((await api(`/pages/${page.id}/page_access_requests`)).items.map((r: any) => r.id)).toEqual([created.id]);
  });
});

describe('agora invites', () => {
  let page: Page;
  let alice: User;
  let bob: User;
  let carol: User;
  let invites: Record<string, string>;

  beforeAll(async () => {
    page = await newPage('secret');
    [alice, bob, carol] = await Promise.all([createUser(server), createUser(server), createUser(server)]);
  });

  it('invites several users, one row per user with the result', async () => {
    const first = expectOk(
      await cli(['invites', 'create', '--page-id', page.id, '--user', alice.id, '--user', bob.id, '--user', member.user.id]),
    );
    const rows = tsvRows(first.stdout);
    expect(rows.map((r) => r.slice(0, 2))).toEqual([
      [alice.id, 'invited'],
      [bob.id, 'invited'],
      [member.user.id, 'invited'],
    ]);
    for (const row of rows) expect(row[2]).toMatch(/^[0-9a-f]{32}$/);
    invites = { [alice.id]: rows[0]![2]!, [bob.id]: rows[1]![2]!, [member.user.id]: rows[2]![2]! };
    expect(first.stderr).toBe('');

    // Users left out make the exit code 1, as in a bulk import; the invited ones are invited all the same.
    const second = await cli(['invites', 'create', '--page-id', page.id, '--user', bob.id, '--user', UNKNOWN_ID, '--user', carol.id]);
    expect(second.code).toBe(1);
    const secondRows = tsvRows(second.stdout);
    expect(secondRows.map((r) => r.slice(0, 2))).toEqual([
      [bob.id, 'User already invite'],
      [UNKNOWN_ID, 'User not found'],
      [carol.id, 'invited'],
    ]);
    expect(secondRows[0]![2]).toBe('');
    invites[carol.id] = secondRows[2]![2]!;
    expect(second.stderr).toBe('error: 2 of 3 users were not invited\n');

    // --json: the API's answer exactly on stdout, and still exit 1.
    const again = await cli(['invites', 'create', '--page-id', page.id, '--user', alice.id, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ success: [], errors: [{ [alice.id]: 'User already invite' }] });
    expect(JSON.parse(again.stderr).error.message).toBe('1 of 1 users were not invited');
  });

  it('lists by recipient, sender, state and page, as TSV and as the API JSON', async () => {
    const [toAlice, toAliceJson, fromAdmin, byPage] = await Promise.all([
      cli(['invites', 'list', '--to', alice.id]),
      cliJson(['invites', 'list', '--to', alice.id]),
      cliJson(['invites', 'list', '--from', adminId, '--state', 'waiting']),
      cliJson(['invites', 'list', '--page-id', page.id, '--state', 'waiting']),
    ]);
    expect(tsvRows(expectOk(toAlice).stdout)).toEqual([[invites[alice.id], page.name, 'admin', alice.nickname, 'waiting']]);
    expect(toAliceJson).toEqual(await api(`/invites?page=1&per_page=25&user_target_id=${alice.id}`));
    expect(fromAdmin).toEqual(await api(`/invites?page=1&per_page=25&user_id=${adminId}&state=waiting`));
    expect(byPage).toEqual(await api(`/pages/${page.id}/invites?page=1&per_page=25&state=waiting`));
    expect(byPage.items.map((i: any) => i.id).sort()).toEqual(Object.values(invites).sort());
    expect(await cliJson(['invites', 'get', invites[alice.id]!])).toEqual(await api(`/invites/${invites[alice.id]}`));
  });

  it('accepts (page administrators only) and refuses with --yes', async () => {
    // The invited member administers nothing: they cannot accept their own invite (403), which stays waiting.
    const own = invites[member.user.id]!;
    const [denied, deniedJson] = await Promise.all([
      cli(['invites', 'accept', own], member.creds),
      cli(['invites', 'accept', own, '--json'], member.creds),
    ]);
    const message = 'Only an administrator of the page can accept or refuse its invites';
    expectApiFailure(denied, message, 'forbidden', 403);
    expect(deniedJson.code).toBe(1);
    expect(deniedJson.stdout).toBe('');
    expect(JSON.parse(deniedJson.stderr)).toEqual({ error: { code: 'forbidden', message, request_id: expect.any(String) } });
    expect((await api(`/invites/${own}`)).state).toBe('waiting');
    // Someone not involved does not even see an invite to a secret page.
    const stranger = await cli(['invites', 'accept', invites[alice.id]!], member.creds);
    expectApiFailure(stranger, 'Invite not found', 'not_found', 404);

    const accepted = tsvRecord(expectOk(await cli(['invites', 'accept', invites[alice.id]!])).stdout);
    expect(accepted).toMatchObject({ id: invites[alice.id], target: page.name, user_target: alice.nickname, state: 'accepted' });
    expect(await api(`/invites/${invites[alice.id]}`)).toMatchObject({ is_accepted: true, is_validate: true, state: 'accepted' });

    const refused = await cliJson(['invites', 'refuse', invites[bob.id]!, '--yes']);
    expect(refused).toEqual(await api(`/invites/${invites[bob.id]}`));
    expect(refused).toMatchObject({ is_validate: false, state: 'refused' });
    expect(tsvRows(expectOk(await cli(['invites', 'list', '--state', 'refused', '--to', bob.id])).stdout)).toEqual([
      [invites[bob.id], page.name, 'admin', bob.nickname, 'refused'],
    ]);
    const twice = await cli(['invites', 'accept', invites[alice.id]!]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/\(already_accepted, HTTP 409\)\n$/);
  });

  it('asks before refusing at a terminal, naming the invite: "no" leaves it waiting and exits 0 quietly; "yes" refuses', async () => {
    const id = invites[carol.id]!;
    const prompt = new RegExp(`Refuse ${carol.nickname}'s invite to ${page.name}\\?.*\\(y/N\\)`);
    const no = await tty(['invites', 'refuse', id], { answers: [{ when: prompt, send: 'n\r' }] });
    const screen = stripAnsi(no.stdout);
    expect(screen).toMatch(prompt);
    expect(no.code, screen).toBe(0);
    expect(screen).not.toMatch(/error/i);
    expect((await api(`/invites/${id}`)).state).toBe('waiting');

    const yes = await tty(['invites', 'refuse', id], { answers: [{ when: prompt, send: 'y\r' }] });
    expect(yes.code, stripAnsi(yes.stdout)).toBe(0);
    expect((await api(`/invites/${id}`)).state).toBe('refused');
  });
});

describe('agora webhooks', () => {
  it('adds (secret shown once), lists, shows deliveries, redelivers and removes', async () => {
    const url = `${receiverUrl}/x-${tag()}`;
    const added = tsvRecord(expectOk(await cli(['webhooks', 'add', url, '--event', 'invite.created'])).stdout);
    expect(added).toMatchObject({ url, events: 'invite.created' });
    expect(added.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const id = added.id!;
    const secret = added.secret!;

    const [list, listJson, get] = await Promise.all([
      cli(['webhooks', 'list']),
      cliJson(['webhooks', 'list']),
      cliJson(['webhooks', 'get', id]),
    ]);
    expect(list.stdout).not.toContain(secret);
    expect(tsvRows(expectOk(list).stdout)).toContainEqual([id, url, 'invite.created']);
    expect(listJson).toEqual(await api('/webhooks?page=1&per_page=25'));
    expect(JSON.stringify(listJson)).not.toContain(secret);
    expect(get).toEqual(await api(`/webhooks/${id}`));
    expect(get.secret).toBeUndefined();

    // An invite fires invite.created; the receiver gets it, signed with the secret printed above.
    const page = await newPage('public');
    const user = await createUser(server);
    const invite = await call(server, 'POST', '/invites', {
      body: { target_type: 'Page', target_id: page.id, user_id: adminId, user_target_ids: [user.id] },
    });
    expect(invite.status).toBe(200);
    const forUs = () => received.filter((r) => JSON.parse(r.body).data?.user_target_id === user.id);
    const first = await until(async () => forUs()[0], 'the first delivery');
    const { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = first.headers;
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    expect(signature).toBe(`v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${first.body}`).digest('base64')}`);

    const deliveries = await until(async () => {
      const body = await api(`/webhooks/${id}/deliveries?page=1&per_page=25`);
      return body.items[0]?.status === 'delivered' ? body : undefined;
    }, 'the delivery to be marked delivered');
    const [tsv, json] = await Promise.all([cli(['webhooks', 'deliveries', id]), cliJson(['webhooks', 'deliveries', id])]);
    expect(json).toEqual(deliveries);
    const delivery = deliveries.items[0];
    expect(delivery).toMatchObject({ event: 'invite.created', status: 'delivered', attempts: 1, last_status_code: 200 });
    expect(tsvRows(expectOk(tsv).stdout)).toEqual([[delivery.id, 'invite.created', 'delivered', '1', '200', '', delivery.next_attempt_at ?? '']]);
    // Listed only under their webhook, deliveries are named by their whole id: a terminal's table shows it whole, and
    // a prefix is a usage error saying where the whole id is, not a 404.
    const { rows } = await tableAt(80, ['webhooks', 'deliveries', id], server);
    expect(rows[0]![0]).toBe(delivery.id);
    const prefix = await cli(['webhooks', 'redeliver', delivery.id.slice(0, 16)]);
    expect(prefix.code).toBe(2);
    expect(prefix.stderr).toMatch(/is not a webhook delivery's whole id \(32 characters\): .*webhooks deliveries <webhook>/);

    // Redelivery queues a new delivery of the same message (same webhook-id), sent again.
    const redelivered = tsvRecord(expectOk(await cli(['webhooks', 'redeliver', delivery.id])).stdout);
    expect(redelivered).toMatchObject({ event: 'invite.created', status: 'pending', attempts: '0' });
    expect(redelivered.id).toMatch(/^[0-9a-f]{32}$/);
    expect(redelivered.id).not.toBe(delivery.id);
    const again = await until(async () => forUs()[1], 'the redelivery');
    expect(again.headers['webhook-id']).toBe(messageId);
    expect(JSON.parse(again.body)).toEqual(JSON.parse(first.body));
    const both = await until(async () => {
      const body = await api(`/webhooks/${id}/deliveries?page=1&per_page=25`);
      return body.items.every((d: any) => d.status === 'delivered') && body.total_items === 2 ? body : undefined;
    }, 'the redelivery to be marked delivered');
    expect(both.items.map((d: any) => d.id).sort()).toEqual([delivery.id, redelivered.id].sort());
    expect(new Set(both.items.map((d: any) => d.message_id))).toEqual(new Set([messageId]));
    expectApiFailure(await cli(['webhooks', 'redeliver', UNKNOWN_ID]), 'Webhook delivery not found', 'not_found', 404);

    // Not on a TTY, remove goes ahead without --yes (and with it).
    const removed = expectOk(await cli(['webhooks', 'remove', id]));
    expect(removed.stdout).toBe(`Webhook ${id} removed\n`);
    expect((await api('/webhooks?per_page=100')).items.map((w: any) => w.id)).not.toContain(id);
    expectApiFailure(await cli(['webhooks', 'deliveries', id]), 'Webhook not found', 'not_found', 404);
    expectApiFailure(await cli(['webhooks', 'remove', id, '--yes']), 'Webhook not found', 'not_found', 404);
  });

  it('adds with --json (the API answer, secret included) and removes with --yes at a terminal without asking', async () => {
    const url = `${receiverUrl}/y-${tag()}`;
    const created = await cliJson(['webhooks', 'add', url, '--event', 'invite.created', '--event', 'page_access_request.created']);
    expect(created).toMatchObject({ url, events: ['invite.created', 'page_access_request.created'] });
    expect(created.secret).toMatch(/^whsec_/);
    expect(await api(`/webhooks/${created.id}`)).toEqual({ ...created, secret: undefined });

    const removed = await tty(['webhooks', 'remove', created.id, '--yes']);
    expect(removed.code, removed.stdout).toBe(0);
    expect(removed.stdout).not.toContain('?');
    expect(stripAnsi(removed.stdout)).toContain(`Webhook ${created.id} removed`);
    expect((await call(server, 'GET', `/webhooks/${created.id}`)).status).toBe(404);
  });

  it('explains that the URL is the argument when given as --url (the server address option), and refuses members', async () => {
    const [asFlag, missing, badEvent, asMember] = await Promise.all([
      cli(['webhooks', 'add', '--url', `${receiverUrl}/z`, '--event', 'invite.created']),
      cli(['webhooks', 'add', '--event', 'invite.created']),
      cli(['webhooks', 'add', `${receiverUrl}/z`, '--event', 'invite.exploded']),
      cli(['webhooks', 'list'], member.creds),
    ]);
    expect(asFlag.code).toBe(2);
    expect(asFlag.stderr).toBe(
      'error: give the webhook URL as the argument: npx agora webhooks add <url> --event … (--url is the address of the agora server)\n',
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: missing the webhook URL: npx agora webhooks add <url> --event …\n');
    expect(badEvent.code).toBe(2);
    expect(badEvent.stderr).toMatch(/^error: --event must each be one of: /);
    expect((await api('/webhooks?per_page=100')).items.map((w: any) => w.url)).not.toContain(`${receiverUrl}/z`);
    expect(asMember.code).toBe(1);
    expect(asMember.stderr).toMatch(/\(forbidden, HTTP 403\)\n$/);
  });
});
