import { describe, expect, it } from 'vitest';
import { call, postingPage, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, tableAt, tsvRows } from './support.js';

/** The moderation loop through the real binary (docs/api.md, "Moderating content and people"): report, list, resolve, remove, suspend and lift. */
const server = useServer();
const run = (args: string[], creds = server.admin, input?: string) => runCli(args, { home: server.dir, env: envFor(server, creds), input });

describe('agora reports, statuses delete, users suspend', () => {
  it('reports a status, settles reports read from a pipe, removes after a confirmation naming the status, suspends and lifts', async () => {
    const [owner, bob, reader] = [await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server)];
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { name: 'Garden Club', privacy: 'public', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
    await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: page.id, user_id: bob.user.id } });
    const first = (await call(server, 'POST', '/statuses', { as: bob.creds, body: { user_id: bob.user.id, page_id: page.id, content: 'first post: cheap pills' } })).body;
    const second = (await call(server, 'POST', '/statuses', { as: bob.creds, body: { user_id: bob.user.id, page_id: page.id, content: 'second' } })).body;
    const third = (await call(server, 'POST', '/statuses', { as: bob.creds, body: { user_id: bob.user.id, page_id: page.id, content: 'third' } })).body;

    const reported = await run(['reports', 'create', '--target-type', 'Status', '--target-id', first.id, '--reason', 'spam', '--json'], reader.creds);
    expect(reported.code, reported.stderr).toBe(0);
    expect(JSON.parse(reported.stdout)).toMatchObject({ state: 'open', target: { excerpt: 'first post: cheap pills' } });
    const again = await run(['reports', 'create', '--target-type', 'Status', '--target-id', first.id, '--reason', 'spam'], reader.creds);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already_reported/);

    const listed = await run(['reports', 'list', '--state', 'open', '--target-type', 'Status', '--fields', 'id'], owner.creds);
    expect(listed.code, listed.stderr).toBe(0);
    const ids = tsvRows(listed.stdout).map((r) => r[0]);
    expect(ids).toHaveLength(1);
    const resolved = await run(['reports', 'resolve', '-', '--action', 'remove'], owner.creds, ids.join('\n'));
    expect(resolved.code, resolved.stderr).toBe(0);
    expect((await call(server, 'GET', `/statuses/${first.id}`, { as: reader.creds })).status).toBe(404);
    const got = JSON.parse((await run(['reports', 'get', ids[0]!, '--json'], reader.creds)).stdout);
    expect(got).toMatchObject({ state: 'resolved', resolution: 'removed' });
    // Without --json: the reporter and who settled it by name, the target by its id and why it is not quoted.
    const shown = new Map(tsvRows((await run(['reports', 'get', ids[0]!], reader.creds)).stdout).map(([k, v]) => [k, v]));
    expect(Object.fromEntries(['reporter', 'resolved by', 'target'].map((k) => [k, shown.get(k)]))).toEqual({
      reporter: reader.user.nickname,
      'resolved by': owner.user.nickname,
      target: `${first.id} (removed) by ${bob.user.nickname}`,
    });

    const asked = await runCliTty(['statuses', 'delete', second.id], {
      home: server.dir,
      env: envFor(server, owner.creds),
      answers: [{ when: /Remove .*\?/, send: 'y\r' }],
    });
    expect(asked.stdout).toContain(`Remove ${bob.user.nickname}'s status "second" in Garden Club?`);
    expect(asked.code).toBe(0);
    expect((await call(server, 'GET', `/statuses/${second.id}`, { as: reader.creds })).status).toBe(404);

    const suspended = await run(['users', 'suspend', bob.user.nickname, '--reason', 'spam ring', '--yes', '--json']);
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(JSON.parse(suspended.stdout).suspension).toMatchObject({ reason: 'spam ring', until: null });
    // The users table says who is suspended, and until when.
    const listed2 = await run(['users', 'list', '--nickname', bob.user.nickname, '--fields', 'nickname,suspended']);
    expect(tsvRows(listed2.stdout)).toEqual([[bob.user.nickname, 'until lifted']]);
    // An Admin still reads a suspended author's statuses (nobody else does): the table says until when.
    const hidden = await run(['statuses', 'list', '--user', bob.user.nickname, '--fields', 'id,author,suspended']);
    expect(tsvRows(hidden.stdout)).toEqual([[third.id, bob.user.nickname, 'until lifted']]);
    // Suspending again replaces the suspension in force: the question says so (declined: nothing changes), and so
    // does a script's run, on stderr.
    const until = '2030-01-01T00:00:00.000Z';
    const declined = await runCliTty(['users', 'suspend', bob.user.nickname, '--reason', 'again', '--until', until], {
      home: server.dir,
      env: envFor(server, server.admin),
      answers: [{ when: /\?/, send: 'n\r' }],
    });
    expect(declined.stdout).toContain(`${bob.user.nickname} is suspended until lifted ("spam ring"): replace that with a suspension until ${until} ("again")?`);
    expect([declined.code, declined.stdout]).toEqual([0, expect.stringContaining('Cancelled: nothing was changed.')]);
    expect(tsvRows((await run(['users', 'list', '--nickname', bob.user.nickname, '--fields', 'suspended'])).stdout)).toEqual([['until lifted']]);
    const replaced = await run(['users', 'suspend', bob.user.nickname, '--reason', 'again', '--until', until]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stderr).toContain(`Replaced ${bob.user.nickname}'s suspension until lifted ("spam ring")`);
    // The user as suspended: when it ends and why, their role by name.
    const view = new Map(tsvRows(replaced.stdout).map(([k, v]) => [k, v]));
    expect([view.get('suspension'), view.get('role')]).toEqual([`until ${until}: again`, 'Members']);
    expect(tsvRows((await run(['users', 'list', '--nickname', bob.user.nickname, '--fields', 'suspended'])).stdout)).toEqual([[`until ${until}`]]);
    // Who is suspended now, alone.
    const suspendedNow = async () => tsvRows((await run(['users', 'list', '--suspended', '--all', '--fields', 'nickname,suspended'])).stdout);
    expect(await suspendedNow()).toContainEqual([bob.user.nickname, `until ${until}`]);
    expect((await suspendedNow()).every(([, end]) => end !== '')).toBe(true);
    const refused = await run(['statuses', 'list'], bob.creds);
    expect(refused.code).toBe(4); // the key does not get in: the credentials' exit code
    expect(refused.stderr).toMatch(/account_suspended/);
    const lifted = await run(['users', 'unsuspend', bob.user.nickname, '--json']);
    expect(JSON.parse(lifted.stdout).suspension).toBeNull();
    expect((await suspendedNow()).map(([nickname]) => nickname)).not.toContain(bob.user.nickname);
    expect(lifted.stderr).toBe('');
    // Again: nothing to lift, said on stderr, and no failure (exit 0): the user, unsuspended, as a lift shows them.
    const unsuspended = await run(['users', 'unsuspend', bob.user.nickname]);
    expect([unsuspended.code, unsuspended.stderr]).toEqual([0, `${bob.user.nickname} was not suspended.\n`]);
    expect(new Map(tsvRows(unsuspended.stdout).map(([k, v]) => [k, v])).get('suspension')).toBe('');
    // A date that is none is refused before any request (exit 2), saying what a date is.
    const badDate = await run(['users', 'suspend', bob.user.nickname, '--reason', 'x', '--until', 'tomorrow', '--yes']);
    expect(badDate.code).toBe(2);
    // Said once: not also that it is no real date.
    expect(badDate.stderr).toBe(
      'error: --until must be an ISO 8601 date (2026-12-31: its midnight UTC) or a time with its offset (2026-12-31T18:00:00Z)\n',
    );
    // A day that does not exist is refused, not rolled over to March.
    const noDay = await run(['users', 'suspend', bob.user.nickname, '--reason', 'x', '--until', '2027-02-30', '--yes']);
    expect(noDay.code).toBe(2);
    expect(noDay.stderr).toBe('error: --until is not a real date\n');
    expect((await call(server, 'GET', `/users/${bob.user.id}`)).body.suspension).toBeNull();
    const mine = await run(['statuses', 'list', '--user', bob.user.nickname, '--json'], bob.creds);
    expect(mine.code, mine.stderr).toBe(0);
    expect(JSON.parse(mine.stdout).items.map((s: { id: string }) => s.id)).toEqual([third.id]);
  });

  it('settles from a script reports whose targets have several (each settled once, the rest said), asks before a removal at a terminal, takes prefixes and nicknames, checks its words before sending', async () => {
    const [owner, bob, r1, r2, r3] = [
      await createUserWithKey(server),
      await createUserWithKey(server),
      await createUserWithKey(server),
      await createUserWithKey(server),
      await createUserWithKey(server),
    ];
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { name: 'Allotment', privacy: 'public', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
    await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: page.id, user_id: bob.user.id } });
    const post = async (content: string) =>
      (await call(server, 'POST', '/statuses', { as: bob.creds, body: { user_id: bob.user.id, page_id: page.id, content } })).body as { id: string };
    const [spam, more, kept, gone1, gone2] = [await post('buy cheap pills'), await post('more pills'), await post('kept one'), await post('gone one'), await post('gone two')];

    // A status by a prefix of its id, as tables show it; a user by nickname.
    const byPrefix = await run(['reports', 'create', '--target-type', 'Status', '--target-id', spam.id.slice(0, 26), '--reason', 'spam', '--json'], r1.creds);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(JSON.parse(byPrefix.stdout).target_id).toBe(spam.id);
    for (const creds of [r2.creds, r3.creds]) expect((await run(['reports', 'create', '--target-type', 'Status', '--target-id', spam.id, '--reason', 'abuse'], creds)).code).toBe(0);
    expect((await run(['reports', 'create', '--target-type', 'Status', '--target-id', more.id, '--reason', 'spam'], r1.creds)).code).toBe(0);
    expect((await run(['reports', 'create', '--target-type', 'User', '--target-id', bob.user.nickname, '--reason', 'spam'], r1.creds)).code).toBe(0);
    // A type in any case: `user` is `User`.
    const onBob = await run(['reports', 'list', '--target-id', bob.user.nickname, '--target-type', 'user', '--json']);
    expect(JSON.parse(onBob.stdout).items.map((r: { target_id: string }) => r.target_id)).toEqual([bob.user.id]);
    // The table names each reporter.
    const reporters = await run(['reports', 'list', '--target-id', bob.user.nickname, '--target-type', 'User', '--fields', 'reporter,reason']);
    expect(tsvRows(reporters.stdout)).toEqual([[r1.user.nickname, 'spam']]);

    // Words checked before any request: exit 2.
    const badState = await run(['reports', 'list', '--state', 'closed']);
    expect([badState.code, badState.stderr]).toEqual([2, expect.stringMatching(/Allowed choices are open, resolved, dismissed/)]);
    const past = await run(['users', 'suspend', bob.user.nickname, '--reason', 'spam', '--until', '2020-01-01']);
    expect([past.code, past.stderr]).toEqual([2, 'error: --until 2020-01-01 is not in the future: a suspension ends after it starts\n']);
    const noReason = await run(['reports', 'resolve', 'ffffff', '--action', 'suspend']);
    expect([noReason.code, noReason.stderr]).toEqual([2, 'error: missing --reason (asked for on a terminal; required otherwise)\n']);
    const missing = await run(['reports', 'create', '--comment', 'no flags']);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('missing --target-type, --target-id, --reason')]);

    // Three reports on one status and one on another: the first of the three settles its siblings.
    const open = await run(['reports', 'list', '--state', 'open', '--target-type', 'Status', '--fields', 'id'], owner.creds);
    const ids = tsvRows(open.stdout).map((r) => r[0]!);
    expect(ids).toHaveLength(4);
    // One ref that cannot be an id, among good ones: a usage error before any is settled.
    const mistyped = await run(['reports', 'dismiss', ids[0]!, 'zzzzzzzz', ids[1]!], owner.creds);
    expect([mistyped.code, mistyped.stderr]).toEqual([2, "error: zzzzzzzz is not a report's id: give its whole id or at least its first 6 characters\n"]);
    expect((await call(server, 'GET', `/reports/${ids[0]}`)).body.state).toBe('open');
    const settled = await run(['reports', 'resolve', '-', '--action', 'remove'], owner.creds, ids.join('\n'));
    expect(settled.code, settled.stderr).toBe(0);
    expect(settled.stdout.match(/already resolved \(removed\)/g)).toHaveLength(2);
    for (const id of [spam.id, more.id]) expect((await call(server, 'GET', `/statuses/${id}`, { as: r1.creds })).status).toBe(404);
    // Settled another way before: named, and the run fails.
    expect((await run(['reports', 'create', '--target-type', 'Status', '--target-id', kept.id, '--reason', 'other'], r1.creds)).code).toBe(0);
    const keptReport = JSON.parse((await run(['reports', 'list', '--state', 'open', '--target-type', 'Status', '--json'])).stdout).items[0].id as string;
    expect((await run(['reports', 'dismiss', keptReport])).code).toBe(0);
    const late = await run(['reports', 'resolve', keptReport, '--action', 'remove', '--yes']);
    expect([late.code, late.stderr]).toEqual([1, expect.stringContaining(`Report ${keptReport}: it was already dismissed: left as it is`)]);
    // Refused for another reason (an Admin cannot suspend themself): the server's reason, the report still open.
    const admin = JSON.parse((await run(['users', 'get', 'admin', '--json'])).stdout) as { id: string };
    expect((await run(['reports', 'create', '--target-type', 'User', '--target-id', 'admin', '--reason', 'other'], r2.creds)).code).toBe(0);
    const onAdmin = JSON.parse((await run(['reports', 'list', '--target-type', 'User', '--target-id', admin.id, '--json'])).stdout).items[0].id as string;
    const self = await run(['reports', 'resolve', onAdmin, '--action', 'suspend', '--reason', 'test', '--yes']);
    expect([self.code, self.stderr]).toEqual([1, expect.stringMatching(new RegExp(`Report ${onAdmin}: .*yourself`))]);
    const unnamed = await run(['reports', 'list', '--target-id', bob.user.nickname]);
    expect([unnamed.code, unnamed.stderr]).toEqual([2, expect.stringContaining('say what it names with --target-type')]);
    expect((await call(server, 'GET', `/statuses/${kept.id}`, { as: r1.creds })).status).toBe(200);

    // At a terminal a removal is asked first, naming what is removed; "n" removes nothing.
    expect((await run(['reports', 'create', '--target-type', 'Status', '--target-id', gone1.id, '--reason', 'spam'], r2.creds)).code).toBe(0);
    const toAsk = JSON.parse((await run(['reports', 'list', '--state', 'open', '--target-type', 'Status', '--json'])).stdout).items[0].id as string;
    const declined = await runCliTty(['reports', 'resolve', toAsk, '--action', 'remove'], {
      home: server.dir,
      env: envFor(server, server.admin),
      answers: [{ when: /Remove .*\?/, send: 'n\r' }],
    });
    expect(declined.stdout).toContain(`Remove ${bob.user.nickname}'s status "gone one"?`);
    expect(declined.code).toBe(0);
    expect((await call(server, 'GET', `/statuses/${gone1.id}`, { as: r1.creds })).status).toBe(200);

    // Several statuses removed at once, from standard input.
    const removed = await run(['statuses', 'delete', '-', '--yes'], owner.creds, `${gone1.id}\n${gone2.id}\n`);
    expect(removed.code, removed.stderr).toBe(0);
    // Each named by whose it was, there and in the audit log.
    expect(removed.stdout).toBe(`Removed ${bob.user.nickname}'s status "gone one"\nRemoved ${bob.user.nickname}'s status "gone two"\n`);
    const logged = await run(['audit', 'list', '--action', 'status.remove', '--target-id', gone1.id, '--fields', 'summary']);
    expect(tsvRows(logged.stdout)).toEqual([[`removed ${bob.user.nickname}'s status "gone one"`]]);
    for (const id of [gone1.id, gone2.id]) expect((await call(server, 'GET', `/statuses/${id}`, { as: r1.creds })).status).toBe(404);

    // Resolved by suspending its author, a status stays (hidden while the suspension lasts): said, with how to remove it.
    const lasting = await post('still here');
    expect((await run(['reports', 'create', '--target-type', 'Status', '--target-id', lasting.id, '--reason', 'spam'], r3.creds)).code).toBe(0);
    const onLasting = JSON.parse((await run(['reports', 'list', '--target-id', lasting.id, '--target-type', 'Status', '--json'])).stdout).items[0].id as string;
    const suspended = await run(['reports', 'resolve', onLasting, '--action', 'suspend', '--reason', 'spam', '--yes']);
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stderr).toContain(`The status stays, hidden from all but Admins while its author is suspended: npx agora statuses delete ${lasting.id} removes it`);
    expect((await run(['users', 'unsuspend', bob.user.nickname])).code).toBe(0);
  });

  it("removes what the remover may remove but not read, named by its id: an event's conversation, a role without statuses.show", async () => {
    const [owner, host, guest] = [await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server)];
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { privacy: 'public', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
    for (const who of [host, guest]) await call(server, 'POST', '/follows', { as: who.creds, body: { followable_type: 'Page', followable_id: page.id, user_id: who.user.id } });
    const event = await call(server, 'POST', '/events', {
      as: host.creds,
      body: { name: 'Meet', user_id: host.user.id, page_id: page.id, start_date: '2031-12-01T10:00:00Z', end_date: '2031-12-01T12:00:00Z' },
    });
    const post = async (body: Record<string, string>) =>
      (await call(server, 'POST', '/statuses', { as: host.creds, body: { user_id: host.user.id, content: 'said', ...body } })).body.id as string;
    const [inConversation, inPage] = [await post({ event_id: event.body.id }), await post({ page_id: page.id })];
    const comment = (await call(server, 'POST', '/comments', { as: host.creds, body: { user_id: host.user.id, status_id: inConversation, content: 'and more' } })).body.id;
    // The page's creator did not answer the event (its conversation is closed to them), yet moderates it.
    expect((await call(server, 'GET', `/statuses/${inConversation}`, { as: owner.creds })).status).toBe(403);
    const closed = await run(['comments', 'delete', comment, '--yes'], owner.creds);
    expect([closed.code, closed.stdout], closed.stderr).toEqual([0, `Removed comment ${comment}\n`]);
    const role = await call(server, 'POST', '/permission_sets', { body: { name: `Unread ${owner.user.nickname}`, permissions: { users: { can_use_api: true } } } });
    await call(server, 'PUT', `/users/${owner.user.id}/role`, { body: { permission_set_id: role.body.id } });
    const unread = await run(['statuses', 'delete', inConversation, inPage, '--yes'], owner.creds);
    expect([unread.code, unread.stdout], unread.stderr).toEqual([0, `Removed status ${inConversation}\nRemoved status ${inPage}\n`]);
    for (const id of [inConversation, inPage]) expect((await call(server, 'GET', `/statuses/${id}`)).body.removed_by).toBe(owner.user.id);
    // Someone who may not remove it is still told why by the server, the id in the line.
    const other = await post({ page_id: page.id });
    const refused = await run(['statuses', 'delete', other, '--yes'], guest.creds);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("Only the author, the page's administrators and project administrators")]);
  });

  it('goes on past a record the server refuses among several, naming it, and exits 1 saying how many were done', async () => {
    const { owner, poster: bob, reader, post } = await postingPage(server, 'Orchard');
    const statuses = [await post('one'), await post('two'), await post('three')];
    const reports: string[] = [];
    for (const id of statuses) {
      const made = await run(['reports', 'create', '--target-type', 'Status', '--target-id', id, '--reason', 'spam', '--json'], reader.creds);
      expect(made.code, made.stderr).toBe(0);
      reports.push(JSON.parse(made.stdout).id);
    }
    // The second is dismissed by someone else meanwhile: resolving it is refused, the first and third are resolved.
    expect((await call(server, 'PUT', `/reports/${reports[1]}/dismiss`, { as: owner.creds })).status).toBe(200);
    const settled = await run(['reports', 'resolve', '-', '--action', 'none'], owner.creds, reports.join('\n'));
    expect(settled.code).toBe(1);
    expect(settled.stderr).toBe(
      `error: Report ${reports[1]}: it was already dismissed: left as it is (conflict, HTTP 409)\nerror: 2 of 3 done; 1 refused (said above)\n`,
    );
    for (const [i, state] of ['resolved', 'dismissed', 'resolved'].entries()) expect((await call(server, 'GET', `/reports/${reports[i]}`)).body.state).toBe(state);

    // A status gone meanwhile, among statuses removed: the others go, and --json says each refusal as the API's error
    // (to an Admin, who still reads it: removed already).
    expect((await call(server, 'DELETE', `/statuses/${statuses[0]}`, { as: bob.creds })).status).toBe(204);
    const removed = await run(['statuses', 'delete', ...statuses, '--yes', '--json']);
    expect(removed.code).toBe(1);
    const lines = removed.stderr.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { error: expect.objectContaining({ code: 'conflict', message: expect.stringMatching(/^This status was already removed \(/) }), id: statuses[0] },
      { error: { code: 'partly_done', message: '2 of 3 done; 1 refused (said above)' } },
    ]);
    for (const id of statuses) expect((await call(server, 'GET', `/statuses/${id}`, { as: reader.creds })).status).toBe(404);
  });

  it('takes enum flags in any case, checks --comment and --reason with none before sending, and acts once on an id named twice', async () => {
    const { poster, reader, owner, post } = await postingPage(server, 'Casing Club');
    const [first, second] = [await post('any case'), await post('twice')];
    const long = await run(['reports', 'create', '--target-type', 'status', '--target-id', first, '--reason', 'Spam', '--comment', 'x'.repeat(1001)], reader.creds);
    expect([long.code, long.stderr]).toEqual([2, 'error: --comment must be at most 1000 characters\n']);
    const made = await run(['reports', 'create', '--target-type', 'STATUS', '--target-id', first, '--reason', 'Spam', '--json'], reader.creds);
    expect(made.code, made.stderr).toBe(0);
    const report = JSON.parse(made.stdout) as { id: string; reason: string };
    expect(report.reason).toBe('spam');
    const listed = await run(['reports', 'list', '--state', 'Open', '--fields', 'id'], owner.creds);
    expect(listed.code, listed.stderr).toBe(0);
    expect(tsvRows(listed.stdout).map((r) => r[0])).toContain(report.id);
    const noReason = await run(['reports', 'resolve', report.id, '--action', 'None', '--reason', 'whatever'], owner.creds);
    expect([noReason.code, noReason.stderr]).toEqual([2, 'error: --reason is for --action remove or suspend: none keeps no reason\n']);
    const resolved = await run(['reports', 'resolve', report.id, '--action', 'Remove', '--json'], owner.creds);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({ state: 'resolved', resolution: 'removed' });
    // The same status twice, by its id and by its prefix: removed once, and the run a success.
    const twice = await run(['statuses', 'delete', second, second.slice(0, 20), '--yes'], poster.creds);
    expect(twice.code, twice.stderr).toBe(0);
    expect(twice.stderr).toBe('');
  });

  it('asks on the terminal itself before removing ids piped in while a person watches, naming where (scripts without a terminal are not asked)', async () => {
    const { Terminal } = await import('../helpers/tmux.js');
    const { BIN } = await import('../helpers/server.js');
    const { poster, post } = await postingPage(server, 'Piped Club');
    const [kept, removed, reported, teed] = [
      await post('kept after no'),
      await post('removed after yes'),
      await post('reported, kept after no'),
      await post('teed, kept after no'),
    ];
    const me = (await call(server, 'GET', '/me')).body as { id: string };
    const report = (await call(server, 'POST', '/reports', { body: { user_id: me.id, target_type: 'Status', target_id: reported, reason: 'spam' } })).body as { id: string };
    const term = new Terminal(server.dir, envFor(server, poster.creds), { width: 160, height: 30 });
    try {
      const line = (id: string, marker: string) => `echo ${id} | ${process.execPath} ${BIN} statuses delete -; echo ${marker}=$?`;
      term.type(line(kept, 'first'));
      await term.waitFor(/Remove \w+'s status "kept after no" in Piped Club\? \(y\/N\)/);
      term.type('n');
      await term.waitFor(/first=0/);
      term.type(line(removed, 'second'));
      await term.waitFor(/Remove \w+'s status "removed after yes" in Piped Club\? \(y\/N\)/);
      term.type('y');
      await term.waitFor(/second=0/);
      // A report's ids piped in too (settled by an Admin): resolving it with remove asks first, naming what goes.
      const admin = `AGORA_API_KEY=${server.admin.key} AGORA_API_SECRET=${server.admin.secret}`;
      term.type(`echo ${report.id} | ${admin} ${process.execPath} ${BIN} reports resolve - --action remove; echo third=$?`);
      await term.waitFor(/Remove \w+'s status "reported, kept after no"\? \(y\/N\)/);
      term.type('n');
      await term.waitFor(/third=0/);
      // Its output piped away while a person types at the terminal: asked on standard error (it went ahead before).
      term.type(`${process.execPath} ${BIN} statuses delete ${teed} | cat > /dev/null; echo fourth=done`);
      await term.waitFor(/Remove \w+'s status "teed, kept after no" in Piped Club\? \(y\/N\)/);
      term.type('n');
      await term.waitFor(/fourth=done/);
    } finally {
      term.close();
    }
    expect((await call(server, 'GET', `/statuses/${kept}`, { as: poster.creds })).status).toBe(200);
    expect((await call(server, 'GET', `/statuses/${removed}`, { as: poster.creds })).status).toBe(404);
    expect((await call(server, 'GET', `/reports/${report.id}`)).body.state).toBe('open');
    expect((await call(server, 'GET', `/statuses/${reported}`, { as: poster.creds })).status).toBe(200);
    expect((await call(server, 'GET', `/statuses/${teed}`, { as: poster.creds })).status).toBe(200);
  });

  it('asks once for several records at a terminal, naming the first of them and how many more', async () => {
    const { poster, post } = await postingPage(server, 'Many Club');
    const statuses = [await post('one'), await post('two'), await post('three'), await post('four')];
    const tty = (ids: string[], send: string) =>
      runCliTty(['statuses', 'delete', ...ids], { home: server.dir, env: envFor(server, poster.creds), answers: [{ when: /\?/, send }] });
    const declined = await tty(statuses, 'n\r');
    expect(declined.code).toBe(0);
    // The "no" is said on stderr (here the same terminal), so that nothing is taken for done.
    expect(declined.stdout).toMatch(/Cancelled: nothing was changed\.\n$/);
    expect(declined.stdout).toMatch(/Remove 4 statuses: \w+'s status "one" in Many Club, \w+'s status "two" in Many Club and 2 more\?/);
    // One status named twice (an id and its prefix) is one: asked about alone.
    const twice = await tty([statuses[0]!, statuses[0]!.slice(0, 12)], 'n\r');
    expect(twice.stdout).toMatch(/Remove \w+'s status "one" in Many Club\?/);
    expect(twice.stdout).not.toMatch(/Remove 2 statuses/);
    for (const id of statuses) expect((await call(server, 'GET', `/statuses/${id}`, { as: poster.creds })).status).toBe(200);
    const three = await tty(statuses.slice(1), 'y\r');
    expect(three.code, three.stdout).toBe(0);
    expect(three.stdout).toMatch(/Remove 3 statuses: \w+'s status "two" in Many Club, \w+'s status "three" in Many Club and \w+'s status "four" in Many Club\?/);
    // One question: the run asked nothing more, and removed all three.
    expect(three.stdout).not.toMatch(/Remove \w+'s status/);
    expect(three.stdout.match(/Removed \w+'s status/g)).toHaveLength(3);
    expect(await Promise.all(statuses.map(async (id) => (await call(server, 'GET', `/statuses/${id}`, { as: poster.creds })).status))).toEqual([200, 404, 404, 404]);
  });

  it('leaves out of the one question the records that cannot be acted on (unknown, already removed), says why after, and names each like taken back', async () => {
    const { poster, post, reader } = await postingPage(server, 'Fail Club');
    const [gone, one, two] = [await post('gone'), await post('first of two'), await post('second of two')];
    expect((await call(server, 'DELETE', `/statuses/${gone}`, { as: poster.creds })).status).toBe(204);
    const unknown = '0'.repeat(gone.length);
    const tty = (args: string[], creds = server.admin) =>
      runCliTty(args, { home: server.dir, env: envFor(server, creds), answers: [{ when: /\?/, send: 'y\r' }] });
    // An Admin still reads the removed status: it is refused before the question, not asked about and then refused.
    const removed = await tty(['statuses', 'delete', gone, unknown, one, two]);
    expect(removed.code, removed.stdout).toBe(1);
    expect(removed.stdout).toMatch(/Remove 2 statuses: \w+'s status "first of two" in Fail Club and \w+'s status "second of two" in Fail Club\? \(2 others cannot be: said after\)/);
    expect(removed.stdout).not.toMatch(/status "gone"[^\n]*\?/);
    expect(removed.stdout).toMatch(new RegExp(`error: Status ${gone}: \\w+'s status "gone" was already removed`));
    expect(removed.stdout).toMatch(new RegExp(`error: Status ${unknown}: .*not found`, 'i'));
    expect(removed.stdout.match(/Removed \w+'s status/g)).toHaveLength(2);
    expect(removed.stdout).toMatch(/2 of 4 done; 2 refused/);

    // Likes: one unknown among them is left out, and each one taken back is named (not by its id).
    const third = await post('liked');
    const likes = [];
    for (const who of [poster, reader]) {
      await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: (await call(server, 'GET', `/statuses/${third}`, { as: poster.creds })).body.page_id, user_id: who.user.id } });
      likes.push((await call(server, 'POST', '/likes', { as: who.creds, body: { user_id: who.user.id, status_id: third } })).body.id as string);
    }
    const unliked = await tty(['likes', 'delete', ...likes, unknown]);
    expect(unliked.code, unliked.stdout).toBe(1);
    expect(unliked.stdout).toMatch(/Take back 2 likes: \w+'s like of \w+'s status "liked" and \w+'s like of \w+'s status "liked"\? \(1 other cannot be: said after\)/);
    expect(unliked.stdout.match(/Took back \w+'s like of \w+'s status "liked"/g)).toHaveLength(2);
    expect(unliked.stdout).not.toMatch(/Took back like /);
  });

  it('lists removed content to Admins, newest removal first, naming its author and remover', async () => {
    const { poster, post, owner } = await postingPage(server, 'Removed Club');
    const gone = await post('buy cheap watches');
    expect((await call(server, 'DELETE', `/statuses/${gone}?reason=spam`, { as: owner.creds })).status).toBe(204);
    const listed = await run(['removed', 'list', '--user', poster.user.nickname, '--header']);
    expect(listed.code, listed.stderr).toBe(0);
    const [header, ...rows] = tsvRows(listed.stdout);
    expect(header).toEqual(['id', 'type', 'author', 'when', 'removed by', 'reason', 'content']);
    expect(rows).toEqual([[gone, 'Status', poster.user.nickname, expect.stringMatching(/^\d{4}-/), owner.user.nickname, 'spam', 'buy cheap watches']]);
    // At 80 columns, what was removed is shown before when and by whom: the list says nothing without it.
    const narrow = await tableAt(80, ['removed', 'list', '--user', poster.user.nickname], server);
    expect(narrow.head).toEqual(['id', 'type', 'author', 'content']);
    expect(narrow.rows[0]![3]).toMatch(/^buy cheap watch/);
    expect(narrow.left).toBe('when, removed by, reason');
    const byRemover = await run(['removed', 'list', '--removed-by', owner.user.nickname, '--target-type', 'comment', '--json']);
    expect(JSON.parse(byRemover.stdout)).toEqual({ items: [], total_items: 0 });
    // Removed content cannot be reported: an Admin, who still reads it, is told so rather than "not found".
    const reported = await run(['reports', 'create', '--target-type', 'Status', '--target-id', gone, '--reason', 'spam']);
    expect(reported.code).toBe(1);
    expect(reported.stderr).toMatch(/This status was already removed \(/);
    const member = await run(['removed', 'list'], poster.creds);
    expect(member.code).toBe(1);
    expect(member.stderr).toMatch(/HTTP 403/);
  });

  it('asks about several reports naming what each is about, and never about what the server will refuse (a user removed, oneself suspended)', async () => {
    const { poster, post, reader } = await postingPage(server, 'Asked Club');
    const report = async (target_type: string, target_id: string) =>
      (await call(server, 'POST', '/reports', { as: reader.creds, body: { user_id: reader.user.id, target_type, target_id, reason: 'spam' } })).body.id as string;
    const onStatus = await report('Status', await post('spam here'));
    const onUser = await report('User', poster.user.id);
    const tty = (args: string[], send = 'n\r') => runCliTty(args, { home: server.dir, env: envFor(server, server.admin), answers: [{ when: /\?/, send }] });
    const both = await tty(['reports', 'resolve', onStatus, onUser, '--action', 'remove']);
    expect(both.code).toBe(0);
    expect(both.stdout).toMatch(/Remove what 1 report is about: \w+'s status "spam here"\? \(1 other cannot be: said after\)/);
    // Alone, a user's report is not asked about: the server's refusal is the answer.
    const alone = await tty(['reports', 'resolve', onUser, '--action', 'remove']);
    expect(alone.code).toBe(1);
    expect(alone.stdout).not.toMatch(/Remove/);
    expect(alone.stdout).toMatch(/a user cannot be removed/);
    // Nor is an Admin's suspending themself.
    const me = (await call(server, 'GET', '/me')).body as { id: string };
    const own = await report('User', me.id);
    const self = await tty(['reports', 'resolve', own, '--action', 'suspend', '--reason', 'test']);
    expect(self.code).toBe(1);
    expect(self.stdout).not.toMatch(/Suspend/);
    expect(self.stdout).toMatch(/cannot_suspend_self/);
    for (const id of [onStatus, onUser, own]) expect((await call(server, 'GET', `/reports/${id}`)).body.state).toBe('open');
  });
});
