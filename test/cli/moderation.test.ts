import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, tsvRows } from './support.js';

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
    const refused = await run(['statuses', 'list'], bob.creds);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/account_suspended/);
    const lifted = await run(['users', 'unsuspend', bob.user.nickname, '--json']);
    expect(JSON.parse(lifted.stdout).suspension).toBeNull();
    const mine = await run(['statuses', 'list', '--user', bob.user.nickname, '--json'], bob.creds);
    expect(mine.code, mine.stderr).toBe(0);
    expect(JSON.parse(mine.stdout).total_items).toBe(0);
  });
});
