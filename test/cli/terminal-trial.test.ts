import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, tsvRows } from './support.js';

/** What a new moderator and a new admin met at the terminal (two helpers' trials): usage mistakes said before any request, ids taken back as printed. */
const server = useServer();
const run = (args: string[], creds = server.admin, input?: string) => runCli(args, { home: server.dir, env: envFor(server, creds), input });

async function reportedStatus() {
  const [owner, bob, reader] = [await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server)];
  const config = await createPageConfiguration(server);
  const page = await createPage(server, { name: 'Trial Club', privacy: 'public', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
  await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: page.id, user_id: bob.user.id } });
  const status = (await call(server, 'POST', '/statuses', { as: bob.creds, body: { user_id: bob.user.id, page_id: page.id, content: 'buy now' } })).body;
  const report = await call(server, 'POST', '/reports', { as: reader.creds, body: { user_id: reader.user.id, target_type: 'Status', target_id: status.id, reason: 'spam' } });
  expect(report.status).toBe(201);
  return { owner, bob, reader, status, report: report.body as { id: string } };
}

describe('a moderator at the terminal', () => {
  it('an option whose value is missing does not take the next option as its value (exit 2, nobody suspended)', async () => {
    const bob = await createUserWithKey(server);
    const empty = await run(['users', 'suspend', bob.user.nickname, '--reason', '--yes']);
    expect([empty.code, empty.stderr]).toEqual([2, "error: option '--reason <text>' argument '--yes' is invalid. --yes is an option, not a value: --reason needs one before it.\n"]);
    expect((await call(server, 'GET', `/users/${bob.user.id}`)).body.suspension).toBeNull();
    // A global option counts too; a word after the option taken for a value is not taken for an argument (it was
    // "too many arguments"); a value that merely starts with dashes is a value.
    expect((await run(['users', 'suspend', bob.user.nickname, '--reason', '--json'])).code).toBe(2);
    const shifted = await run(['pages', 'create', '--privacy', 'public', '--config', '--name', 'Foo']);
    expect([shifted.code, shifted.stderr]).toEqual([2, "error: option '--config <config>' argument '--name' is invalid. --name is an option, not a value: --config needs one before it.\n"]);
    const dashes = await run(['users', 'suspend', bob.user.nickname, '--reason', '--- spam ---', '--yes', '--json']);
    expect(dashes.code, dashes.stderr).toBe(0);
    expect(JSON.parse(dashes.stdout).suspension.reason).toBe('--- spam ---');
  });

  it('reports resolve checks --until before any request, as users suspend does; ids in capitals and given twice are one report', async () => {
    const { bob, report } = await reportedStatus();
    const past = await run(['reports', 'resolve', report.id, '--action', 'suspend', '--reason', 'spam', '--until', '2020-01-01']);
    expect([past.code, past.stderr]).toEqual([2, 'error: --until 2020-01-01 is not in the future: a suspension ends after it starts\n']);
    expect((await call(server, 'GET', `/users/${bob.user.id}`)).body.suspension).toBeNull();
    const shouted = report.id.slice(0, 12).toUpperCase();
    const got = await run(['reports', 'get', shouted, '--json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).id).toBe(report.id);
    // Given twice (a prefix and the whole id), acted on once: resolved, not "already resolved" the second time.
    const twice = await run(['reports', 'resolve', report.id.slice(0, 16), report.id, '--action', 'none']);
    expect([twice.code, twice.stdout, twice.stderr]).toEqual([0, `Report ${report.id} resolved (none)\n`, '']);
  });

  it('reports list --user lists one reporter\'s reports; reports create --user reports for someone (Admins)', async () => {
    const { reader, status, report } = await reportedStatus();
    const mine = await run(['reports', 'list', '--user', reader.user.nickname, '--fields', 'id,reporter']);
    expect(mine.code, mine.stderr).toBe(0);
    expect(tsvRows(mine.stdout)).toEqual([[report.id, reader.user.nickname]]);
    const other = await createUserWithKey(server);
    expect(tsvRows((await run(['reports', 'list', '--user', other.user.nickname, '--fields', 'id'])).stdout)).toEqual([]);
    const forOther = await run(['reports', 'create', '--target-type', 'Status', '--target-id', status.id, '--reason', 'abuse', '--user', other.user.nickname, '--json']);
    expect(forOther.code, forOther.stderr).toBe(0);
    expect(JSON.parse(forOther.stdout)).toMatchObject({ user_id: other.user.id, reason: 'abuse' });
  });

  it('audit list takes an action in any case and refuses a window that ends before it starts', async () => {
    const { bob } = await reportedStatus();
    expect((await run(['users', 'suspend', bob.user.nickname, '--reason', 'spam', '--yes'])).code).toBe(0);
    const shouted = await run(['audit', 'list', '--action', 'USER.SUSPEND', '--target-id', bob.user.nickname, '--fields', 'action']);
    expect([shouted.code, shouted.stderr]).toEqual([0, '']);
    expect(tsvRows(shouted.stdout)).toEqual([['user.suspend']]);
    const backwards = await run(['audit', 'list', '--since', '2026-12-01', '--until', '2026-11-01']);
    expect([backwards.code, backwards.stderr]).toEqual([2, 'error: --since 2026-12-01 is not before --until 2026-11-01 (which is left out): no entry can be in both\n']);
  });

  it('webhooks add takes events in any case, says how a loopback URL is allowed, and shows the circuit in words', async () => {
    const added = await run(['webhooks', 'add', 'https://hooks.example.org/trial', '--event', 'REPORT.CREATED', '--event', 'Invite.Created']);
    expect(added.code, added.stderr).toBe(0);
    const shown = new Map(tsvRows(added.stdout).map(([k, v]) => [k, v]));
    expect([shown.get('events'), shown.get('circuit')]).toEqual(['report.created invite.created', 'closed']);
    const loopback = await run(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--event', 'report.created']);
    expect(loopback.code).toBe(1);
    expect(loopback.stderr).toContain('(a server started with AGORA_WEBHOOKS_ALLOW_PRIVATE=1 allows them)');
  });

  it('removed list prints a removed comment\'s whole id, which comments get takes back', async () => {
    const { bob, status } = await reportedStatus();
    const comment = (await call(server, 'POST', '/comments', { as: bob.creds, body: { user_id: bob.user.id, status_id: status.id, content: 'and more' } })).body;
    expect((await call(server, 'DELETE', `/comments/${comment.id}`)).status).toBe(204);
    // In a table at 80 columns, where other ids are cut to a prefix.
    const listed = await runCliTty(['removed', 'list', '--target-type', 'Comment', '--user', bob.user.nickname], { home: server.dir, env: envFor(server, server.admin), columns: 80 });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(comment.id);
    const got = await run(['comments', 'get', comment.id, '--json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).removed_at).not.toBeNull();
  });
});

describe('an admin at the terminal', () => {
  it('users list --role resolves the role as every command does: a name, or an id prefix; one naming no role is exit 1', async () => {
    const ada = await createUserWithKey(server);
    const roles = (await call(server, 'GET', '/permission_sets?per_page=100')).body.items as { id: string; name: string }[];
    const members = roles.find((r) => r.name === 'Members')!;
    const byPrefix = await run(['users', 'list', '--role', members.id.slice(0, 16), '--nickname', ada.user.nickname, '--fields', 'nickname']);
    expect([byPrefix.code, byPrefix.stderr]).toEqual([0, '']);
    expect(tsvRows(byPrefix.stdout)).toEqual([[ada.user.nickname]]);
    const unknown = await run(['users', 'list', '--role', 'Nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
  });

  it('invites create invites a user named twice once (by nickname and by id), and says so as invited', async () => {
    const [owner, pat] = [await createUserWithKey(server), await createUserWithKey(server)];
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { name: 'Board Room', privacy: 'secret', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
    const invited = await run(['invites', 'create', '--page-id', page.id, '--user', pat.user.nickname, '--user', pat.user.id], owner.creds);
    expect([invited.code, invited.stderr]).toEqual([0, '']);
    expect(tsvRows(invited.stdout).map((r) => r.slice(0, 2))).toEqual([[pat.user.nickname, 'invited']]);
  });

  it('a word that is none of a group\'s commands is said to be one, with the commands the group has (exit 2): profiles, which lists by default, too', async () => {
    const cases: [string[], string][] = [
      [['profiles', 'bogus'], "error: unknown command 'bogus'\nagora profiles has these commands: use, list\n"],
      [['profiles', 'lis'], "error: unknown command 'lis'\n(Did you mean list?)\nagora profiles has these commands: use, list\n"],
      [['help', 'profiles', 'lis'], "error: unknown command 'lis'\n(Did you mean list?)\nagora profiles has these commands: use, list\n"],
      [['pages', 'bogus'], "error: unknown command 'bogus'\nagora pages has these commands: create, list, get, import\n"],
    ];
    for (const [args, stderr] of cases) {
      const result = await run(args);
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, code: 2, stdout: '', stderr });
    }
    // The default command still runs with no word, and a command named.
    for (const args of [['profiles'], ['profiles', 'list']]) expect((await run(args)).code, args.join(' ')).toBe(0);
  });

  it("under --json, commander's own usage errors are the contract's error body on stderr, exit 2, as the CLI's own are", async () => {
    const cases: [string[], string][] = [
      [['pages', 'list', '--privacy', 'hidden', '--json'], "option '--privacy <privacy>' argument 'hidden' is invalid. Allowed choices are public, private, secret."],
      [['--json', 'pages', 'get'], "missing required argument 'page'"],
      [['pages', 'list', '--frobnicate', '--json'], "unknown option '--frobnicate'"],
      [['pagess', '--json'], "unknown command 'pagess' (Did you mean pages?)"],
      [['profiles', 'bogus', '--json'], "unknown command 'bogus'; agora profiles has these commands: use, list"],
      [['--json', '--timeout', '0', 'pages', 'list'], "option '--timeout <seconds>' argument '0' is invalid. must be a number of seconds greater than 0"],
      // A group given no command shows its help; under --json, it says which commands it has.
      [['pages', '--json'], 'agora pages needs a command: create, list, get, import'],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stdout: '',
        stderr: `${JSON.stringify({ error: { code: 'invalid_usage', message } })}\n`,
      });
    }
    // The CLI's own usage errors had that shape already: the same code.
    const own = await run(['users', 'import', '-', '--json']);
    expect([own.code, JSON.parse(own.stderr).error.code]).toEqual([2, 'invalid_usage']);
  });

  it("help examples joined by && run as printed: each agora of the line is written as it runs", async () => {
    const help = await run(['help', 'users', 'import']);
    const lines = help.stdout.split('\n').filter((l) => l.startsWith('  $ ') && l.includes('&&'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(/(^ {2}\$ |&& |\| )agora /);
  });
});
