import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { BIN, useServer } from '../helpers/server.js';
import { envFor, freshHome, tableAt, tsvRows } from './support.js';

/**
 * The issue-6 command groups through the real binary against a real server: notifications (list, seen),
 * statuses, comments, likes, stream and events, piped (TSV), with --json, and at a terminal.
 */
const server = useServer();
const run = (args: string[], creds = server.admin, input?: string) => runCli(args, { home: server.dir, env: envFor(server, creds), input });

describe('agora statuses, comments, likes, stream and notifications', () => {
  it('posts, comments and likes; the author lists the notifications and marks them seen', async () => {
    const author = await createUserWithKey(server);
    const fan = await createUserWithKey(server);
    await call(server, 'POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: author.user.id, user_id: fan.user.id } });

    const posted = await run(['statuses', 'create', '--content', 'Hello from the CLI', '--json'], author.creds);
    expect(posted.code, posted.stderr).toBe(0);
    const status = JSON.parse(posted.stdout);
    expect(status).toMatchObject({ content: 'Hello from the CLI', user_id: author.user.id });

    const commented = await run(['comments', 'create', '--status', status.id, '--content', 'Nice one'], fan.creds);
    expect(commented.code, commented.stderr).toBe(0);
    expect(commented.stdout).toContain('Nice one');
    const liked = await run(['likes', 'create', '--status', status.id], fan.creds);
    expect(liked.code, liked.stderr).toBe(0);
    const twice = await run(['likes', 'create', '--status', status.id], fan.creds);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/already_liked, HTTP 409/);
    const neither = await run(['likes', 'create'], fan.creds);
    expect(neither.code).toBe(2);

    const got = await run(['statuses', 'get', status.id], fan.creds);
    expect(Object.fromEntries(tsvRows(got.stdout).map(([k, v]) => [k, v]))).toMatchObject({ comments_count: '1', likes_count: '1', user: author.user.nickname });

    // The fan's stream holds the status (the fan-out and the stream are the server's; poll briefly for the former).
    const stream = await run(['stream', '--json'], fan.creds);
    expect(JSON.parse(stream.stdout).items.map((s: { id: string }) => s.id)).toContain(status.id);

    const listed = await run(['notifications', 'list'], author.creds);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = tsvRows(listed.stdout);
    expect(rows.map((r) => r[3])).toEqual(['like', 'comment', 'follow']);
    expect(rows[1]![2]).toMatch(/commented on your status: Nice one$/);
    const json = JSON.parse((await run(['notifications', 'list', '--unseen', '--json'], author.creds)).stdout);
    expect(json).toHaveLength(3);

    const one = await run(['notifications', 'seen', '--ids', json[0].id], author.creds);
    expect(one.stdout.trim()).toBe('1 notification marked seen');
    const rest = await run(['notifications', 'seen', '--json'], author.creds);
    expect(JSON.parse(rest.stdout)).toEqual({ updated: 2 });
    expect((await run(['notifications', 'list', '--unseen'], author.creds)).stdout).toBe('');
    const others = await run(['notifications', 'list', '--user', author.user.id], fan.creds);
    expect(others.code).toBe(1);
    expect(others.stderr).toMatch(/forbidden, HTTP 403/);
    // A dozen runs of the binary in one test: room for a loaded machine.
  }, 90_000);

  it('asks before marking every notification seen at a terminal, naming how many; "no" changes nothing', async () => {
    const target = await createUserWithKey(server);
    for (let i = 0; i < 2; i++) {
      const fan = await createUserWithKey(server);
      await call(server, 'POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: target.user.id, user_id: fan.user.id } });
    }
    const declined = await runCliTty(['notifications', 'seen'], {
      home: server.dir,
      env: envFor(server, target.creds),
      answers: [{ when: /Mark 2 unseen notifications as seen\?/, send: 'n\r' }],
    });
    expect(declined.stdout).toMatch(/Mark 2 unseen notifications as seen\?/);
    expect((await call(server, 'GET', `/users/${target.user.id}/notifications?status=unseen`)).body).toHaveLength(2);
    const accepted = await runCliTty(['notifications', 'seen'], {
      home: server.dir,
      env: envFor(server, target.creds),
      answers: [{ when: /Mark 2 unseen/, send: 'y\r' }],
    });
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/2 notifications marked seen/);
  });

  it("says which permission a role lacks when it may not post: the caller's, or that of the user an Admin posts for", async () => {
    const silenced = await createUserWithKey(server);
    const role = await call(server, 'POST', '/permission_sets', { body: { name: 'Silenced', permissions: { users: { can_use_api: true }, statuses: { index: true, show: true } } } });
    await call(server, 'PUT', `/users/${silenced.user.id}/role`, { body: { permission_set_id: role.body.id } });
    const own = await run(['statuses', 'create', '--content', 'Let me speak'], silenced.creds);
    expect(own.code).toBe(1);
    expect(own.stderr.trim()).toBe('error: Your role does not grant the permission statuses.create (forbidden, HTTP 403)');
    const forThem = await run(['statuses', 'create', '--content', 'On their behalf', '--user', silenced.user.nickname]);
    expect(forThem.code).toBe(1);
    expect(forThem.stderr.trim()).toBe(`error: The role of ${silenced.user.nickname} does not grant the permission statuses.create (forbidden, HTTP 403)`);
  });

  it('lists who liked a status, reads one like, and takes one back by the status it likes (asked at a terminal, naming it)', async () => {
    const author = await createUserWithKey(server);
    const fans = [await createUserWithKey(server), await createUserWithKey(server)];
    const status = (await call(server, 'POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content: 'Tomatoes are in' } })).body;
    for (const fan of fans) await call(server, 'POST', '/likes', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id } });

    const listed = await run(['likes', 'list', '--status', status.id], author.creds);
    expect(listed.code, listed.stderr).toBe(0);
    expect(tsvRows(listed.stdout).map((r) => r[1])).toEqual(fans.map((f) => f.user.nickname));
    const one = await run(['likes', 'list', '--status', status.id, '--user', fans[1]!.user.nickname, '--json'], author.creds);
    const [like] = JSON.parse(one.stdout).items;
    expect(like).toMatchObject({ user_id: fans[1]!.user.id, status_id: status.id });
    const got = await run(['likes', 'get', like.id], author.creds);
    expect(Object.fromEntries(tsvRows(got.stdout).map(([k, v]) => [k, v]))).toMatchObject({ id: like.id, user: fans[1]!.user.nickname });
    expect((await run(['likes', 'list'], author.creds)).code).toBe(2);
    expect((await run(['likes', 'delete'], author.creds)).code).toBe(2);

    // By the status it likes: the fan's own like, named in the question.
    const declined = await runCliTty(['likes', 'delete', '--status', status.id], {
      home: server.dir,
      env: envFor(server, fans[0]!.creds),
      answers: [{ when: /Take back .*'s like of .*'s status "Tomatoes are in"\?/, send: 'n\r' }],
    });
    expect(declined.stdout).toMatch(new RegExp(`Take back ${fans[0]!.user.nickname}'s like of ${author.user.nickname}'s status`));
    expect((await call(server, 'GET', `/statuses/${status.id}`)).body.likes_count).toBe(2);
    const taken = await run(['likes', 'delete', '--status', status.id], fans[0]!.creds);
    expect(taken.code, taken.stderr).toBe(0);
    expect((await call(server, 'GET', `/statuses/${status.id}/likes`)).body.items.map((l: { user_id: string }) => l.user_id)).toEqual([fans[1]!.user.id]);
    const again = await run(['likes', 'delete', '--status', status.id], fans[0]!.creds);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/you do not like this status/);

    // Once the status is hidden from the fan (its author suspended), their like is still theirs to take back.
    expect((await call(server, 'PUT', `/users/${author.user.id}/suspension`, { body: { reason: 'test' } })).status).toBe(200);
    try {
      expect((await call(server, 'GET', `/statuses/${status.id}`, { as: fans[1]!.creds })).status).toBe(404);
      const hidden = await run(['likes', 'delete', '--status', status.id], fans[1]!.creds);
      expect(hidden.code, hidden.stderr).toBe(0);
      // Piped: named by its id (a person at a terminal is told whose like of what).
      expect(hidden.stdout).toMatch(/^Took back like \w+/);
      expect((await call(server, 'GET', `/statuses/${status.id}`)).body.likes_count).toBe(0);
    } finally {
      await call(server, 'DELETE', `/users/${author.user.id}/suspension`);
    }
  });
});

describe('agora notifications watch', () => {
  it('prints each new notification as it comes (NDJSON with --json, TSV piped) and stops on SIGINT', async () => {
    const target = await createUserWithKey(server);
    const env = { ...process.env, HOME: server.dir, XDG_CONFIG_HOME: join(server.dir, '.config'), ...envFor(server, target.creds) };
    const watch = (args: string[]) => {
      const child = spawn(process.execPath, [BIN, 'notifications', 'watch', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
      const lines = async (n: number, waitMs = 10_000) => {
        for (let i = 0; i < waitMs / 50 && stdout.split('\n').filter(Boolean).length < n; i++) await new Promise((r) => setTimeout(r, 50));
        return stdout.split('\n').filter(Boolean);
      };
      const stop = () => new Promise<number | null>((ok) => (child.once('exit', (code, signal) => ok(code ?? (signal ? 130 : null))), child.kill('SIGINT')));
      return { lines, stop };
    };
    const json = watch(['--json']);
    const tsv = watch([]);
    // A watcher prints what comes once it is connected, and nothing tells the test when that is: a new fan
    // follows the target until both have printed a notification (a fixed pause was too short on a busy machine).
    const fans: Awaited<ReturnType<typeof createUserWithKey>>[] = [];
    for (let i = 0; i < 20 && ((await json.lines(1, 1000)).length === 0 || (await tsv.lines(1, 1000)).length === 0); i++) {
      const fan = await createUserWithKey(server);
      fans.push(fan);
      await call(server, 'POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: target.user.id, user_id: fan.user.id } });
    }
    const [line] = await json.lines(1);
    const printed = JSON.parse(line!);
    const fan = fans.find((f) => f.user.id === printed.subject_id);
    expect(fan, line).toBeDefined();
    expect(printed).toMatchObject({ user_id: target.user.id, notification_type: 'follow', subject_id: fan!.user.id });
    const [row] = await tsv.lines(1);
    const names = fans.map((f) => `${f.user.first_name} ${f.user.last_name} followed you`);
    expect(row!.split('\t')[3]).toBe('follow');
    expect(names).toContain(row!.split('\t')[2]);
    expect(await json.stop()).toBe(130);
    expect(await tsv.stop()).toBe(130);
  });
});

describe('agora events', () => {
  it('creates an event with tickets and a local date, answers it, and lists attendees', async () => {
    const creator = await createUserWithKey(server);
    const guest = await createUserWithKey(server);
    const created = await run(
      ['events', 'create', '--name', 'Harvest supper', '--start', '2030-09-20 18:00', '--end', '2030-09-20T23:00:00Z', '--places', '2', '--ticket', 'Standard:12.50:EUR', '--ticket', 'Child:0:EUR', '--json'],
      creator.creds,
    );
    expect(created.code, created.stderr).toBe(0);
    const event = JSON.parse(created.stdout);
    expect(event).toMatchObject({
      name: 'Harvest supper',
      start_date: new Date(2030, 8, 20, 18, 0).toISOString(),
      end_date: '2030-09-20T23:00:00.000Z',
      places_limit: 2,
      tickets: [
        { name: 'Standard', price: '12.50', currency: 'EUR' },
        { name: 'Child', price: '0', currency: 'EUR' },
      ],
    });
    const rsvp = await run(['events', 'rsvp', event.id, '--answer', 'yes'], guest.creds);
    expect(rsvp.code, rsvp.stderr).toBe(0);
    expect(Object.fromEntries(tsvRows(rsvp.stdout).map(([k, v]) => [k, v]))).toMatchObject({ answer: 'yes', event: expect.stringMatching(/\(1 going, 1 place left\)$/) });
    const attendees = await run(['events', 'attendees', event.id]);
    expect(tsvRows(attendees.stdout)).toEqual([[guest.user.id, guest.user.nickname, 'yes', expect.any(String)]]);
    const listed = await run(['events', 'list', '--owner', creator.user.id, '--current']);
    expect(tsvRows(listed.stdout).map((r) => r[0])).toEqual([event.id]);
    expect((await run(['events', 'rsvp', event.id, '--answer', 'perhaps'], guest.creds)).code).toBe(2);
    const badDate = await run(['events', 'create', '--name', 'x', '--start', 'tomorrow', '--end', '2030-09-20 19:00'], creator.creds);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toMatch(/--start/);
    const badTicket = await run(['events', 'create', '--name', 'x', '--start', '2030-09-20 18:00', '--end', '2030-09-20 19:00', '--ticket', 'Free'], creator.creds);
    expect(badTicket.code).toBe(2);
    const backwards = await run(['events', 'create', '--name', 'x', '--start', '2030-09-20 18:00', '--end', '2030-09-20 17:00'], creator.creds);
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/--end must not be before start_date/);
  });

  it('takes a plain date for --start and --end, its midnight UTC, as users suspend --until does; a bad one is exit 2 before credentials', async () => {
    const creator = await createUserWithKey(server);
    const byDay = await run(['events', 'create', '--name', 'Winter fair', '--start', '2030-12-20', '--end', '2030-12-21', '--json'], creator.creds);
    expect(byDay.code, byDay.stderr).toBe(0);
    expect(JSON.parse(byDay.stdout)).toMatchObject({ start_date: '2030-12-20T00:00:00.000Z', end_date: '2030-12-21T00:00:00.000Z' });
    const mixed = await run(['events', 'create', '--name', 'Winter fair', '--start', '2030-12-20', '--end', '2030-12-20t18:00:00+01:00', '--json'], creator.creds);
    expect(JSON.parse(mixed.stdout)).toMatchObject({ start_date: '2030-12-20T00:00:00.000Z', end_date: '2030-12-20T17:00:00.000Z' });
    // Checked by the same schema as --until, before credentials are looked for: none here.
    const noCredentials = { home: freshHome(server), env: { AGORA_URL: server.url } };
    const cases: [string[], string][] = [
      [['--start', 'tomorrow', '--end', '2030-12-21'], 'error: --start must be an ISO 8601 date (2026-12-31: its midnight UTC) or a time with its offset (2026-12-31T18:00:00Z), or "YYYY-MM-DD HH:MM" in the local time zone\n'],
      [['--start', '2030-12-20', '--end', '2030-02-30'], 'error: --end 2030-02-30 is not a real date\n'],
    ];
    for (const [args, stderr] of cases) {
      const result = await runCli(['events', 'create', '--name', 'x', ...args], noCredentials);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 2, stderr });
    }
  });

  it('posts in a page with --page-id; an outsider is refused, and may not answer the page\'s events either', async () => {
    const owner = await createUserWithKey(server);
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'private' }, owner.creds);
    const inPage = await run(['statuses', 'create', '--content', 'In the page', '--page-id', page.id, '--json'], owner.creds);
    expect(JSON.parse(inPage.stdout).page_id).toBe(page.id);
    const outsider = await createUserWithKey(server);
    const refused = await run(['statuses', 'create', '--content', 'x', '--page-id', page.id], outsider.creds);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/HTTP 403/);
    const created = await run(['events', 'create', '--name', 'Reading night', '--start', '2030-09-21 18:00', '--end', '2030-09-21 21:00', '--page-id', page.id, '--json'], owner.creds);
    expect(created.code, created.stderr).toBe(0);
    const rsvp = await run(['events', 'rsvp', JSON.parse(created.stdout).id, '--answer', 'yes'], outsider.creds);
    expect({ code: rsvp.code, stdout: rsvp.stdout }).toEqual({ code: 1, stdout: '' });
    expect(rsvp.stderr).toBe('error: Only members of this private page may answer its events: ask to join it (or be invited) first (forbidden, HTTP 403)\n');
  });
});

describe('agora events rsvp by one who left a secret page', () => {
  it('takes their answer back by the event\'s id, showing no more of the event; its slug names nothing to them, and says so', async () => {
    const [owner, guest] = [await createUserWithKey(server), await createUserWithKey(server)];
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { user_id: owner.user.id, page_configuration_id: config.id, privacy: 'secret' }, owner.creds);
    // An Admin adds the guest (a secret page is joined by invite alone).
    const follow = await call(server, 'POST', '/follows', { body: { user_id: guest.user.id, followable_type: 'Page', followable_id: page.id } });
    const created = await run(['events', 'create', '--name', 'Cellar tasting', '--start', '2030-09-22 18:00', '--end', '2030-09-22 21:00', '--page-id', page.id, '--json'], owner.creds);
    const event = JSON.parse(created.stdout);
    expect((await run(['events', 'rsvp', event.slug, '--answer', 'yes'], guest.creds)).code).toBe(0);
    expect((await call(server, 'DELETE', `/follows/${follow.body.id}`)).status).toBe(204);
    const bySlug = await run(['events', 'rsvp', event.slug, '--answer', 'no'], guest.creds);
    expect([bySlug.code, bySlug.stdout, bySlug.stderr]).toEqual([
      1,
      '',
      `error: No event with the id or slug "${event.slug}" (an event of a secret page you left is answered no by its whole id only)\n`,
    ]);
    const byId = await run(['events', 'rsvp', event.id, '--answer', 'no'], guest.creds);
    expect(byId.code, byId.stderr).toBe(0);
    expect(Object.fromEntries(tsvRows(byId.stdout))).toMatchObject({ answer: 'no', event: 'hidden from you (a secret page you are not in)' });
    expect((await call(server, 'GET', `/events/${event.id}`)).body.attendees_count).toBe(0);
    const yes = await run(['events', 'rsvp', event.id, '--answer', 'yes'], guest.creds);
    expect([yes.code, yes.stderr]).toEqual([1, 'error: Event not found (not_found, HTTP 404)\n']);
  });
});

describe('at 80 columns, what a moderator reads keeps its room; the secondary columns are left out first, and said so', () => {
  it('notifications list: the sentence (who did what) before its type and whether it was seen', async () => {
    const author = await createUserWithKey(server);
    const fan = await createUserWithKey(server);
    await call(server, 'POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: author.user.id, user_id: fan.user.id } });
    const status = JSON.parse((await run(['statuses', 'create', '--content', 'Seedlings on Saturday', '--json'], author.creds)).stdout);
    expect((await run(['comments', 'create', '--status', status.id, '--content', 'I will bring basil'], fan.creds)).code).toBe(0);
    expect((await run(['likes', 'create', '--status', status.id], fan.creds)).code).toBe(0);
    const { head, rows, left } = await tableAt(80, ['notifications', 'list'], server, author.creds);
    expect(head).toEqual(['id', 'when', 'what']);
    expect(left).toBe('type, seen');
    const name = `${fan.user.first_name} ${fan.user.last_name}`;
    expect(rows.map((r) => r[2])).toEqual([`${name} liked your status`, expect.stringMatching(/ commented on your/), `${name} followed you`]);
  });

  it('stream: the words of each status before its counts, time and suspension', async () => {
    const author = await createUserWithKey(server);
    const reader = await createUserWithKey(server);
    await call(server, 'POST', '/follows', { as: reader.creds, body: { followable_type: 'User', followable_id: author.user.id, user_id: reader.user.id } });
    const content = 'Seedling swap on Saturday: bring what you have too many of.';
    expect((await run(['statuses', 'create', '--content', content], author.creds)).code).toBe(0);
    const { head, rows, left } = await tableAt(80, ['stream'], server, reader.creds);
    expect(head).toEqual(['id', 'author', 'content', 'page', 'event']);
    expect(left).toBe('comments, likes, created, suspended');
    const shown = rows[0]![2]!;
    expect(shown.length, shown).toBeGreaterThanOrEqual(24);
    expect(content.startsWith(shown.replace(/…$/, '')), shown).toBe(true);
  });

  it('events list: the name whole, the start and who goes, before the places left, the end, the slug and the tickets', async () => {
    const creator = await createUserWithKey(server);
    const made = await run(
      ['events', 'create', '--name', 'Spring planting day', '--start', '2030-04-12 09:00', '--end', '2030-04-12 16:00', '--places', '20', '--ticket', 'Standard:12.50:EUR', '--json'],
      creator.creds,
    );
    expect(made.code, made.stderr).toBe(0);
    const { head, rows, left } = await tableAt(80, ['events', 'list', '--owner', creator.user.nickname], server);
    expect(head).toEqual(['id', 'name', 'start', 'attendees']);
    expect(left).toBe('places left, end, slug, tickets');
    expect(rows.map((r) => r.slice(1, 2))).toEqual([['Spring planting day']]);
  });
});
