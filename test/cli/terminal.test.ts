import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { openStore } from '../../src/store/open.js';
import { seedMembers } from '../helpers/app.js';
import { useServer } from '../helpers/server.js';
import { onPostgres, TEST_SECRET_KEY } from '../helpers/store-target.js';
import { Terminal } from '../helpers/tmux.js';
import { envFor, freshHome, tsvRows, withoutSpinner } from './support.js';

/**
 * The CLI as a person meets it on a real terminal (tmux) and as a script meets it through a pipe: escape
 * sequences from the server stay inert, whole lists, names for ids, tables that fit, prompts.
 */
const server = useServer({ env: { AGORA_WEBHOOKS_ALLOW_PRIVATE: '1' } });
let term: Terminal;
let adminId: string;
const tag = () => randomBytes(4).toString('hex');
const agora = (args: string[], input?: string) => runCli(args, { home: server.dir, env: envFor(server), input });
const EVIL = 'Evil\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\u009b1m';

beforeAll(async () => {
  adminId = ((await call(server, 'GET', '/me')).body as { id: string }).id;
  term = new Terminal(freshHome(server), envFor(server));
});
afterAll(() => term?.close());

describe('safe output', () => {
  it('a name holding ESC, BEL, CSI and OSC sequences, listed, shown and in an error, leaves the title and the screen alone', async () => {
    const config = await createPageConfiguration(server, `${EVIL} ${tag()}`);
    const page = await createPage(server, { user_id: adminId, page_configuration_id: config.id, name: `${EVIL} ${tag()}`, privacy: 'public' });
    // Two configurations with the same evil name: naming it is ambiguous, and the error lists both by name.
    const twin = `${EVIL}${tag()}`;
    await createPageConfiguration(server, twin);
    await createPageConfiguration(server, twin);
    term.clear();
    term.type('echo still-here-before');
    const before = term.title();
    const listed = await term.agora(`pages list --slug ${page.slug}`);
    const shown = await term.agora(`pages get ${page.slug}`);
    term.type(`export TWIN="$(printf 'Evil\\033]0;pwned\\007\\033[2J\\033[31mred\\302\\2331m')${twin.slice(EVIL.length)}"`);
    const failed = await term.agora('pages create --name X --privacy public --config "$TWIN"');
    const screen = term.screen();
    expect(listed.code, listed.screen).toBe(0);
    expect(shown.code, shown.screen).toBe(0);
    expect(failed.code, failed.screen).toBe(2);
    expect(term.title()).toBe(before);
    expect(term.title()).not.toContain('pwned');
    // Nothing cleared the screen: the line typed before is still there, and the sequences show as text.
    expect(screen).toContain('still-here-before');
    expect(screen).toMatch(/Evil␛]0;pwned␇␛\[2J␛\[31mred\\x9b1m/);
    expect(failed.screen).toMatch(/2 page configurations have the name "Evil␛]0;pwned␇␛\[2J/);
  });

  it('piped, the sequences are made visible too; --json keeps the exact text', async () => {
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: adminId, page_configuration_id: config.id, name: `${EVIL} ${tag()}`, privacy: 'public' });
    const [tsv, json] = await Promise.all([agora(['pages', 'get', page.slug]), agora(['pages', 'get', page.slug, '--json'])]);
    expect(tsv.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(Object.fromEntries(tsvRows(tsv.stdout)).name).toBe(`Evil␛]0;pwned␇␛[2J␛[31mred\\x9b1m ${String(page.name).split(" ").pop()}`);
    expect(JSON.parse(json.stdout).name).toBe(page.name);
  });

  it('--json at a terminal writes C1 and bidirectional controls as \\u escapes, the same JSON; piped, the exact text', async () => {
    const controls = '\u009b31m\u0085\u202eevil\u2066x\u2069\u200e\u200f\u061c\u007f';
    const escaped = '\\u009b31m\\u0085\\u202eevil\\u2066x\\u2069\\u200e\\u200f\\u061c\\u007f';
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: adminId, page_configuration_id: config.id, name: `Bidi${controls} ${tag()}`, privacy: 'public' });
    const env = envFor(server);
    const [piped, tty, error] = await Promise.all([
      agora(['pages', 'get', page.slug, '--json']),
      runCliTty(['pages', 'get', page.slug, '--json'], { home: server.dir, env }),
      runCliTty(['pages', 'get', `no-such${controls}`, '--json'], { home: server.dir, env }),
    ]);
    expect(piped.stdout).toContain(controls);
    expect(JSON.parse(piped.stdout).name).toBe(page.name);
    const unsafe = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    for (const r of [tty, error]) expect(r.stdout).not.toMatch(unsafe);
    expect(tty.stdout).toContain(escaped);
    expect(JSON.parse(withoutSpinner(tty.stdout))).toEqual(JSON.parse(piped.stdout));
    // The error body on stderr (the same terminal) too.
    expect(JSON.parse(withoutSpinner(error.stdout)).error.message).toContain(`no-such${controls}`);
    // On a real terminal nothing was acted on: the escapes are on the screen as text.
    term.clear();
    const shown = await term.agora(`pages get ${page.slug} --json`);
    expect(shown.code).toBe(0);
    expect(shown.screen).toContain(`"name": "Bidi${escaped} `);
  });

  it('piped, a list keeps one record a line: line and paragraph separators in a name become spaces', async () => {
    const config = await createPageConfiguration(server);
    const name = `Two\u2028lines\u2029here ${tag()}`;
    await createPage(server, { user_id: adminId, page_configuration_id: config.id, name, privacy: 'public' });
    const tsv = await agora(['pages', 'list', '--config', config.id]);
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsv.stdout).not.toMatch(/[\u2028\u2029]/);
    expect(tsv.stdout.trim().split('\n')).toHaveLength(1);
    expect(tsv.stdout).toContain(`Two lines here ${name.split(' ').pop()}`);
  });
});

describe('names where people type them', () => {
  it('pages get <slug>, users get <nickname>, pages create --config <name>; an ambiguous name exits 2', async () => {
    const config = await createPageConfiguration(server, `Community ${tag()}`);
    const user = await createUser(server);
    const page = await createPage(server, { user_id: adminId, page_configuration_id: config.id, name: `Garden ${tag()}`, privacy: 'public' });
    const [bySlug, byNickname, created, unknown] = await Promise.all([
      agora(['pages', 'get', page.slug]),
      agora(['users', 'get', user.nickname]),
      agora(['pages', 'create', '--name', `Books ${tag()}`, '--config', config.name, '--privacy', 'private', '--user', user.nickname]),
      agora(['users', 'get', `nobody-${tag()}`]),
    ]);
    expect(Object.fromEntries(tsvRows(bySlug.stdout))).toMatchObject({ id: page.id, owner: 'admin', configuration: config.name });
    expect(Object.fromEntries(tsvRows(byNickname.stdout)).id).toBe(user.id);
    expect(created.code, created.stderr).toBe(0);
    expect(Object.fromEntries(tsvRows(created.stdout))).toMatchObject({ page_configuration_id: config.id, user_id: user.id, owner: user.nickname });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: No user with the id or nickname "nobody-/);

    const twin = `Twin ${tag()}`;
    const [a, b] = [await createPageConfiguration(server, twin), await createPageConfiguration(server, twin)];
    const ambiguous = await agora(['pages', 'create', '--name', 'X', '--config', twin, '--privacy', 'public']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`2 page configurations have the name "${twin}"`);
    expect(ambiguous.stderr).toContain(a.id);
    expect(ambiguous.stderr).toContain(b.id);
  });
});

describe('whole lists', () => {
  it('--all on 260 users gives 260 rows, --limit 30 gives 30, and a cut piped list says so on stderr', async () => {
    const have = ((await call(server, 'GET', '/users')).body as { total_items: number }).total_items;
    // Written straight into the server's store (one hash for all): created through the API, each would cost a
    // scrypt, and on a busy machine 250 of them outlast the test's time.
    const store = await openStore(server.db, onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
    try {
      await seedMembers(store, 260 - have);
    } finally {
      await store.close();
    }
    expect(((await call(server, 'GET', '/users')).body as { total_items: number }).total_items).toBe(260);
    const [all, limited, page, json, header] = await Promise.all([
      agora(['users', 'list', '--all']),
      agora(['users', 'list', '--limit', '30']),
      agora(['users', 'list']),
      agora(['users', 'list', '--all', '--json']),
      agora(['users', 'list', '--limit', '2', '--fields', 'nickname,id', '--header']),
    ]);
    const rows = tsvRows(all.stdout);
    expect(rows).toHaveLength(260);
    expect(new Set(rows.map((r) => r[0])).size).toBe(260);
    expect(all.stderr).toBe('');
    expect(tsvRows(limited.stdout)).toHaveLength(30);
    expect(limited.stderr).toBe('');
    expect(tsvRows(page.stdout)).toHaveLength(25);
    expect(page.stderr).toBe('25 of 260 shown; --all for every one\n');
    expect(JSON.parse(json.stdout)).toMatchObject({ total_items: 260 });
    expect(JSON.parse(json.stdout).items).toHaveLength(260);
    const [head, ...rest] = tsvRows(header.stdout);
    expect(head).toEqual(['nickname', 'id']);
    expect(rest).toHaveLength(2);
    expect(rest[0]![1]).toMatch(/^[0-9a-f]{32}$/);
    const bad = await agora(['users', 'list', '--fields', 'nickname,shoe_size']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --fields: no column "shoe_size"/);
  });
});

describe('tables that fit', () => {
  it('at 60 columns, pages list, invites list and webhooks deliveries draw no line wider than 60', async () => {
    const config = await createPageConfiguration(server);
    const page = await createPage(server, {
      user_id: adminId,
      page_configuration_id: config.id,
      name: `A page with a rather long name to show truncation ${tag()}`,
      privacy: 'secret',
    });
    const hook = await call(server, 'POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['invite.created'] } });
    const invited = await createUser(server);
    await call(server, 'POST', '/invites', { body: { target_type: 'Page', target_id: page.id, user_id: adminId, user_target_ids: [invited.id] } });
    await term.resize(60);
    for (const args of ['pages list --per-page 10', `invites list --page-id ${page.slug}`, `webhooks deliveries ${hook.body.id}`]) {
      term.clear();
      const { code, screen } = await term.agora(args);
      expect(code, screen).toBe(0);
      const lines = screen.split('\n').filter((l) => /^[│┌└├]/.test(l));
      expect(lines.length, screen).toBeGreaterThan(3);
      for (const line of lines) expect([...line].length, `${args}:\n${screen}`).toBeLessThanOrEqual(60);
      // One rule under the header, none between rows.
      expect(lines.filter((l) => l.startsWith('├')).length).toBe(1);
    }
    await term.resize(200);
  });
});

describe('times in a table that would not fit', () => {
  it('are cut to the minute, and no further, before the text beside them is: a notification reads whole at 100 columns', async () => {
    const [reader, fan] = await Promise.all([createUser(server, { nickname: `reader_${tag()}` }), createUser(server, { nickname: `fan_${tag()}` })]);
    await call(server, 'POST', '/follows', { body: { followable_type: 'User', followable_id: reader.id, user_id: fan.id } });
    await term.resize(100);
    try {
      term.clear();
      const { code, screen } = await term.agora(`notifications list --user ${reader.nickname}`);
      expect(code, screen).toBe(0);
      expect(screen, screen).toMatch(/│ \d{4}-\d\d-\d\d \d\d:\d\dZ │/);
      expect(screen).toContain(`${fan.fullname} followed you`);
      // The audit log's five columns at 80: its summaries and request ids give way, its times do not.
      await term.resize(80);
      term.clear();
      const audit = await term.agora('audit list --per-page 5');
      expect(audit.code, audit.screen).toBe(0);
      const rows = audit.screen.split('\n').filter((l) => /^│ \d{4}/.test(l));
      expect(rows.length, audit.screen).toBeGreaterThan(0);
      for (const row of rows) expect(row, audit.screen).toMatch(/^│ \d{4}-\d\d-\d\d \d\d:\d\dZ │/);
    } finally {
      await term.resize(200);
    }
  });
});

describe('prompts', () => {
  it('asks for every missing value, re-asks an invalid one or a nickname taken, masks the password, and creates the user', async () => {
    const nickname = `pat_${tag()}`;
    const taken = `Taken_${tag()}`;
    expect((await call(server, 'POST', '/users', { body: { first_name: 'T', last_name: 'T', nickname: taken, email: `${taken}@example.org`, password: 'long enough 42', accept_conditions: true, accept_confidentiality: true } })).status).toBe(201);
    term.clear();
    const run = term.agora('users create --first-name Pat --last-name Doe');
    await term.waitFor(/Nickname/);
    term.type('no spaces allowed');
    await term.waitFor(/may contain only/);
    term.keys('C-u');
    // Taken whatever its case: said at once, not after every other question.
    term.type(taken.toLowerCase());
    await term.waitFor(/is taken/);
    term.keys('C-u');
    term.type(nickname);
    await term.waitFor(/Email/);
    term.type(`${nickname}@example.org`);
    await term.waitFor(/Password/);
    term.type('secretive42');
    await term.waitFor(/Password \(again\)/);
    term.type('secretive42');
    await term.waitFor(/accept the conditions/);
    term.type('y');
    await term.waitFor(/confidentiality/);
    term.type('y');
    const { code, screen } = await run;
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('secretive42');
    expect(screen).toMatch(/Password \*{11}/);
    const found = (await call(server, 'GET', `/users?nickname=${nickname}`)).body as { items: { email: string }[] };
    expect(found.items[0]?.email).toBe(`${nickname}@example.org`);
  });

  it('offers page configurations and privacies to pick from; Ctrl-C exits 130 with nothing written', async () => {
    const config = await createPageConfiguration(server, `Picked ${tag()}`);
    const name = `Asked ${tag()}`;
    term.clear();
    const run = term.agora('pages create');
    await term.waitFor(/Page name/);
    term.type(name);
    await term.waitFor(/Page configuration/);
    // The pick-list: move down to the new configuration, then Enter.
    await term.waitFor(/❯/);
    for (let i = 0; i < 200 && !term.screen().includes(`❯ ${config.name}`); i++) {
      term.keys('Down');
      await new Promise((ok) => setTimeout(ok, 20));
    }
    expect(term.screen()).toContain(`❯ ${config.name}`);
    term.keys('Enter');
    await term.waitFor(/Privacy/);
    term.keys('Enter');
    const { code, screen } = await run;
    expect(code, screen).toBe(0);
    const pages = (await call(server, 'GET', `/pages?per_page=100&page_configuration_id=${config.id}`)).body as { items: { name: string }[] };
    expect(pages.items.map((p) => p.name)).toEqual([name]);

    const before = ((await call(server, 'GET', '/pages')).body as { total_items: number }).total_items;
    term.clear();
    const stopped = term.agora('pages create');
    await term.waitFor(/Page name/);
    term.keys('C-c');
    expect((await stopped).code).toBe(130);
    expect(((await call(server, 'GET', '/pages')).body as { total_items: number }).total_items).toBe(before);
  });

  it('reports create looks the target up as soon as it is typed: a nickname naming no one is asked again, before the reason; the comment is offered', async () => {
    const spammer = await createUser(server, { nickname: `spam_${tag()}` });
    term.clear();
    const run = term.agora('reports create --target-type User');
    await term.waitFor(/The user \(id or nickname\)/);
    term.type(`nobody_${tag()}`);
    await term.waitFor(/No user with the id or nickname "nobody_/);
    expect(term.screen()).not.toMatch(/Why/);
    term.keys('C-u');
    term.type(String(spammer.nickname));
    await term.waitFor(/Why/);
    term.keys('Enter');
    // The comment, optional, is offered too: too long is asked again, as the API would refuse it.
    await term.waitFor(/What moderators should know \(optional, ⏎ for none\)/);
    term.type('x'.repeat(1001));
    await term.waitFor(/must be at most 1000 characters/);
    term.keys('C-u');
    term.type('Links to a shop');
    const { code, screen } = await run;
    expect(code, screen).toBe(0);
    const reports = (await call(server, 'GET', `/reports?target_id=${spammer.id}`)).body as { items: { target_type: string; reason: string }[] };
    expect(reports.items).toMatchObject([{ target_type: 'User', reason: 'spam', comment: 'Links to a shop' }]);
  });

  it("reports create checks a status's id as it is typed: too short, not an id, no such status, then a prefix", async () => {
    const status = (await call(server, 'POST', '/statuses', { body: { user_id: adminId, content: `reportable ${tag()}` } })).body as { id: string };
    term.clear();
    const run = term.agora('reports create --target-type Status --reason spam');
    await term.waitFor(/The status's id \(or its prefix\)/);
    term.type('01a2');
    await term.waitFor(/01a2 is too short to name a status/);
    term.keys('C-u');
    term.type('zzzzzzzz');
    await term.waitFor(/zzzzzzzz is not a status's id/);
    term.keys('C-u');
    term.type('f'.repeat(32));
    await term.waitFor(/No status you may see has the id f{32}/);
    term.keys('C-u');
    term.type(status.id.slice(0, 24));
    await term.waitFor(/What moderators should know/);
    term.keys('Enter');
    const { code, screen } = await run;
    expect(code, screen).toBe(0);
    expect(((await call(server, 'GET', `/reports?target_id=${status.id}`)).body as { items: unknown[] }).items).toMatchObject([{ target_type: 'Status', reason: 'spam' }]);
  });

  it('reports create says at once when the server cannot be reached, before asking why; Ctrl-C stops (130)', async () => {
    term.clear();
    const run = term.agora('--url http://127.0.0.1:9 reports create --target-type User');
    await term.waitFor(/The user \(id or nickname\)/);
    term.type('someone');
    await term.waitFor(/127\.0\.0\.1:9.*\(⏎ to try again, Ctrl-C to stop\)/, 20_000);
    expect(term.screen()).not.toMatch(/Why/);
    term.keys('C-c');
    expect((await run).code).toBe(130);
  });

  it('users suspend and reports resolve ask for what they miss on a terminal, and name it otherwise (exit 2)', async () => {
    const bob = await createUser(server, { nickname: `bob_${tag()}` });
    term.clear();
    const run = term.agora(`users suspend ${bob.nickname}`);
    await term.waitFor(/Why \(told to them\)/);
    term.type('spam after a warning');
    await term.waitFor(/Suspend .* \(y\/N\)/);
    term.type('y');
    const { code, screen } = await run;
    expect(code, screen).toBe(0);
    expect(((await call(server, 'GET', `/users/${bob.id}`)).body as { suspension: { reason: string } }).suspension.reason).toBe('spam after a warning');
    // The action is asked for with what the report is about.
    const carl = await createUser(server, { nickname: `carl_${tag()}` });
    const report = (await call(server, 'POST', '/reports', { body: { user_id: adminId, target_type: 'User', target_id: carl.id, reason: 'spam' } })).body as { id: string };
    term.clear();
    const resolving = term.agora(`reports resolve ${report.id.slice(0, 24)}`);
    await term.waitFor(new RegExp(`What is done about the report on ${carl.nickname}[\\s\\S]*❯ suspend`));
    // A user cannot be removed: the menu does not offer it.
    expect(term.screen()).not.toMatch(/remove/);
    term.keys('C-c');
    expect((await resolving).code).toBe(130);
    // A report on a status names its words in the question, their control characters made visible.
    const status = (await call(server, 'POST', '/statuses', { body: { user_id: adminId, content: `\u001b[2Jwiped ${tag()}` } })).body as { id: string };
    const onStatus = (await call(server, 'POST', '/reports', { body: { user_id: adminId, target_type: 'Status', target_id: status.id, reason: 'spam' } })).body as { id: string };
    term.clear();
    const asking = term.agora(`reports resolve ${onStatus.id}`);
    await term.waitFor(/What is done about the report on .*\u241b\[2Jwiped[\s\S]*❯ remove/);
    term.keys('C-c');
    expect((await asking).code).toBe(130);
    const [noReason, noAction] = await Promise.all([agora(['users', 'suspend', String(bob.nickname)]), agora(['reports', 'resolve', 'f'.repeat(32)])]);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toBe('error: missing --reason (asked for on a terminal; required otherwise)\n');
    expect(noAction.code).toBe(2);
    expect(noAction.stderr).toBe('error: missing --action (asked for on a terminal; required otherwise)\n');
  });

  it('without a terminal, exits 2 naming every missing flag at once; --password-stdin reads the secret', async () => {
    const missing = await agora(['users', 'create', '--first-name', 'Pat']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'error: missing --last-name, --nickname, --email, --password-stdin, --accept-conditions, --accept-confidentiality (asked for on a terminal; required otherwise)\n',
    );
    const nickname = `stdin_${tag()}`;
    const created = await agora(
      ['users', 'create', '--first-name', 'Pat', '--last-name', 'Doe', '--nickname', nickname, '--email', `${nickname}@example.org`, '--password-stdin', '--accept-conditions', '--accept-confidentiality'],
      'fromstdin42\n',
    );
    expect(created.code, created.stderr).toBe(0);
    const login = await runCli(['login', '--api-key', server.admin.key, '--with-token', '--url', server.url.replace(/^http:\/\//, '') + '/public-api/v1'], {
      home: freshHome(server),
      input: `${server.admin.secret}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Logged in to ${server.url} as admin`);
  });
});

describe('Ctrl-C during an import', () => {
  it('with ora loaded for the slow-call spinner (it loads signal-exit), the rows in flight finish and it says how to resume (exit 130)', async () => {
    const t = tag();
    const file = join(server.dir, `people-${t}.ndjson`);
    // Enough rows that the import cannot end before the Ctrl-C (about 400 a second here).
    const rows = Array.from({ length: 4000 }, (_, i) =>
      JSON.stringify({ first_name: 'I', last_name: String(i), nickname: `ctrlc_${t}_${i}`, email: `ctrlc_${t}_${i}@example.org`, accept_conditions: true, accept_confidentiality: true }),
    );
    writeFileSync(file, `${rows.join('\n')}\n`);
    writeFileSync(join(server.dir, `pw-${t}.txt`), 'a long enough password 42\n');
    term.clear();
    const run = term.agora(`users import ${file} --password-file ${join(server.dir, `pw-${t}.txt`)}`);
    await term.waitFor(/\d+ rows · /);
    // Calls always in flight: ora (and with it signal-exit) is loaded 300 ms after the first, though the bar keeps it off.
    await new Promise((ok) => setTimeout(ok, 800));
    term.keys('C-c');
    const { code, screen } = await run;
    expect(code, screen).toBe(130);
    expect(screen.replace(/\n/g, '')).toMatch(/interrupted: \d+ rows imported, 0 failed; the rest with: .*--resume/);
  });
});
