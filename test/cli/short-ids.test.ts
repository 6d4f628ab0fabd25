import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer, type Credentials } from '../helpers/server.js';
import { envFor } from './support.js';

/**
 * Every id the CLI prints is accepted back (docs/architecture.md, "The client and the CLI"): a table shortens ids to a unique prefix, and that
 * prefix (6 characters or more) names the record in every command; several matches exit 2 listing them, none 1.
 * Ids are time-ordered (48 bits of milliseconds first): records made in one run share their first 6 characters,
 * and 20 characters name one record.
 */
const server = useServer();
const agora = (args: string[], creds: Credentials = server.admin) => runCli(args, { home: server.dir, env: envFor(server, creds) });
const adminId = async () => ((await call(server, 'GET', '/me')).body as { id: string }).id;

describe('short ids', () => {
  it('statuses get takes a unique prefix; a shared one exits 2 listing them, one matching nothing exits 1', async () => {
    const [author, fan] = await Promise.all([createUserWithKey(server), createUserWithKey(server)]);
    await call(server, 'POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: author.user.id, user_id: fan.user.id } });
    const posted: { id: string }[] = [];
    for (const content of ['first', 'second'])
      posted.push((await call(server, 'POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content } })).body);
    // The fan's stream is filled by a fan-out of the server's: waited for, briefly.
    for (let i = 0; i < 100; i++) {
      const stream = (await call(server, 'GET', `/users/${fan.user.id}/stream`, { as: fan.creds })).body as { items: { id: string }[] };
      if (stream.items.length >= 2) break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    const [one, shared, none] = await Promise.all([
      agora(['statuses', 'get', posted[0]!.id.slice(0, 20), '--json'], fan.creds),
      agora(['statuses', 'get', posted[0]!.id.slice(0, 6)], fan.creds),
      agora(['statuses', 'get', 'ffffff0'], fan.creds),
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ id: posted[0]!.id, content: 'first' });
    expect(shared.code).toBe(2);
    expect(shared.stderr).toMatch(new RegExp(`^error: 2 statuses have an id starting with ${posted[0]!.id.slice(0, 6)}: .*; give more of the id\\n$`));
    for (const { id } of posted) expect(shared.stderr).toContain(id);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('error: No status you may see has an id starting with ffffff0\n');
    // Shorter than any table shows: a usage error, not "not found".
    const short = await agora(['statuses', 'get', posted[0]!.id.slice(0, 5)], fan.creds);
    expect([short.code, short.stderr]).toEqual([2, `error: ${posted[0]!.id.slice(0, 5)} is too short to name a status: give its whole id or at least its first 6 characters\n`]);
  });

  it('a removed status keeps its prefix for Admins, who still read it (found through the audit log); for others it names nothing', async () => {
    const author = await createUserWithKey(server);
    const status = (await call(server, 'POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content: 'gone soon' } })).body as { id: string };
    expect((await call(server, 'DELETE', `/statuses/${status.id}?reason=spam`)).status).toBe(204);
    const prefix = status.id.slice(0, 20);
    const [admin, member] = await Promise.all([agora(['statuses', 'get', prefix, '--json']), agora(['statuses', 'get', prefix], author.creds)]);
    expect(admin.code, admin.stderr).toBe(0);
    expect(JSON.parse(admin.stdout)).toMatchObject({ id: status.id, content: 'gone soon', removal_reason: 'spam', removed_at: expect.any(String) });
    expect(member.code).toBe(1);
    expect(member.stderr).toBe(`error: No status you may see has an id starting with ${prefix}\n`);
  });

  it('pages get and access-requests accept take the prefix a table shows', async () => {
    const config = await createPageConfiguration(server);
    const page = (await createPage(server, { user_id: await adminId(), page_configuration_id: config.id, privacy: 'private' })) as unknown as { id: string; name: string };
    const asker = await createUserWithKey(server);
    const request = (await call(server, 'POST', '/page_access_requests', { as: asker.creds, body: { page_id: page.id, user_id: asker.user.id } }))
      .body as { id: string };
    expect(request.id, JSON.stringify(request)).toBeTruthy();
    const shown = await agora(['pages', 'get', page.id.slice(0, 20), '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).name).toBe(page.name);
    const accepted = await agora(['access-requests', 'accept', request.id.slice(0, 20), '--json']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ id: request.id, state: 'accepted' });
  });

  it('notifications seen --ids takes a prefix; one seen already says so; ids naming none of the user\'s notifications exit 1, not "0 marked"', async () => {
    const target = await createUserWithKey(server);
    const fan = await createUserWithKey(server);
    await call(server, 'POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: target.user.id, user_id: fan.user.id } });
    const [notification] = (await call(server, 'GET', `/users/${target.user.id}/notifications`, { as: target.creds })).body as { id: string }[];
    const marked = await agora(['notifications', 'seen', '--ids', notification!.id.slice(0, 20)], target.creds);
    expect(marked.code, marked.stderr).toBe(0);
    expect(marked.stdout).toBe('1 notification marked seen\n');
    const [again, nothing] = await Promise.all([
      agora(['notifications', 'seen', '--ids', notification!.id], target.creds),
      agora(['notifications', 'seen', '--ids', 'f'.repeat(32)], target.creds),
    ]);
    // Seen already: nothing to do, and no mistake either.
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('0 notifications marked seen; 1 was seen already\n');
    expect(nothing.code).toBe(1);
    expect(nothing.stdout).toBe('');
    expect(nothing.stderr).toBe(`error: No notification of this user has the id ${'f'.repeat(32)}: nothing marked seen\n`);
  });

  it('notifications watch --since takes a prefix and replays what came after it; a ref that is no id exits 2, one naming none 1', async () => {
    const { spawn } = await import('node:child_process');
    const { join } = await import('node:path');
    const { BIN } = await import('../helpers/server.js');
    const target = await createUserWithKey(server);
    for (const fan of [await createUserWithKey(server), await createUserWithKey(server)])
      await call(server, 'POST', '/follows', { as: fan.creds, body: { followable_type: 'User', followable_id: target.user.id, user_id: fan.user.id } });
    const [newer, older] = (await call(server, 'GET', `/users/${target.user.id}/notifications`, { as: target.creds })).body as { id: string }[];
    const env = { ...process.env, HOME: server.dir, XDG_CONFIG_HOME: join(server.dir, '.config'), ...envFor(server, target.creds) };
    const child = spawn(process.execPath, [BIN, 'notifications', 'watch', '--since', older!.id.slice(0, 16), '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    for (let i = 0; i < 200 && !stdout.includes('\n') && child.exitCode === null; i++) await new Promise((ok) => setTimeout(ok, 50));
    child.kill('SIGINT');
    expect(stderr).toBe('');
    expect(JSON.parse(stdout.split('\n')[0]!).id).toBe(newer!.id);
    const [notId, none] = await Promise.all([
      agora(['notifications', 'watch', '--since', 'yesterday'], target.creds),
      agora(['notifications', 'watch', '--since', 'f'.repeat(20)], target.creds),
    ]);
    expect([notId.code, notId.stderr]).toEqual([2, "error: yesterday is not a notification's id: give its whole id or at least its first 6 characters\n"]);
    expect([none.code, none.stderr]).toEqual([1, `error: No notification of this user has an id starting with ${'f'.repeat(20)}\n`]);
  });

  it("a table's ids are as long as the terminal allows; comments are taken only whole (they are listed under their status), and said so", async () => {
    const { runCliTty } = await import('../helpers/cli.js');
    const { stripAnsi, withoutSpinner } = await import('./support.js');
    const author = await createUserWithKey(server);
    const status = (await call(server, 'POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content: 'ask me' } })).body as { id: string };
    // Another made at once: the two share their first characters (the same second), as records of one run do.
    const twin = (await call(server, 'POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content: 'me too' } })).body as { id: string };
    expect(twin.id.slice(0, 8)).toBe(status.id.slice(0, 8));
    // A comment by the status's prefix, as tables show it; long enough that the table must cut something.
    const made = await agora(['comments', 'create', '--status', status.id.slice(0, 20), '--content', `first ${'and more '.repeat(12)}`, '--json'], author.creds);
    expect(made.code, made.stderr).toBe(0);
    const comment = JSON.parse(made.stdout) as { id: string; status_id: string };
    expect(comment.status_id).toBe(status.id);
    await agora(['comments', 'create', '--status', status.id, '--content', 'second'], author.creds);
    const run = await runCliTty(['statuses', 'comments', status.id], { home: server.dir, env: envFor(server, author.creds), columns: 125 });
    expect(run.code, run.stdout).toBe(0);
    const rows = stripAnsi(withoutSpinner(run.stdout)).replace(/\r/g, '').split('\n').filter((l) => l.startsWith('│')).slice(1);
    const cells = rows.map((l) => l.split('│').map((c) => c.trim()));
    // The comments' ids whole, the status's as long as the width leaves, and never shorter than 16 characters
    // (unique among these rows, 8 would do, but they name the twin too): given back, it names the status.
    expect(cells.map((c) => c[1])).toContain(comment.id);
    expect(cells[0]!.length, 'the status column is shown').toBe(7);
    for (const c of cells) {
      expect(status.id.startsWith(c[5]!), c[5]).toBe(true);
      expect(c[5]!.length).toBeGreaterThanOrEqual(16);
    }
    const back = await agora(['statuses', 'get', cells[0]![5]!, '--json'], author.creds);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).id).toBe(status.id);
    for (const args of [['comments', 'delete', comment.id.slice(0, 12), '--yes'], ['likes', 'create', '--comment', comment.id.slice(0, 12)]]) {
      const refused = await agora(args, author.creds);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toBe(
        `error: ${comment.id.slice(0, 12)} is not a comment's whole id (32 characters): comments are not listed on their own, so only whole ids are taken (\`npx agora statuses comments <status>\` shows them)\n`,
      );
    }
    const shown = await agora(['comments', 'get', comment.id, '--json'], author.creds);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: comment.id, content: expect.stringMatching(/^first /), status_id: status.id });
    const deleted = await agora(['comments', 'delete', comment.id, '--yes'], author.creds);
    expect(deleted.code, deleted.stderr).toBe(0);
    // Gone: an Admin still reads it, with its removal; its author finds nothing.
    expect(JSON.parse((await agora(['comments', 'get', comment.id, '--json'])).stdout)).toMatchObject({ id: comment.id, removed_by: author.user.id });
    expect((await agora(['comments', 'get', comment.id], author.creds)).code).toBe(1);
  });
});
