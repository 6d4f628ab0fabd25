import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, tsvRows } from './support.js';

/** `agora audit list`: the audit log with its filters. */

const server = useServer();

describe('agora audit list', () => {
  it('lists entries newest first with filters, and tells a Member they may not', async () => {
    const { user, creds } = await createUserWithKey(server, { nickname: `audited${Date.now() % 100000}` });
    const env = envFor(server);
    const rows = tsvRows((await runCli(['audit', 'list', '--action', 'user.create', '--target-id', user.id], { home: server.dir, env })).stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.slice(1, 4)).toEqual(['admin', 'user.create', `created the user ${user.nickname}`]);
    const offline = tsvRows((await runCli(['audit', 'list', '--action', 'api_key.create', '--since', '2000-01-01'], { home: server.dir, env })).stdout);
    expect(offline.map((r) => r[1])).toContain('offline');
    expect(offline.map((r) => r[3])).toContain(`created an API key for ${user.nickname}`);
    const json = await runCli(['audit', 'list', '--actor', user.nickname, '--json'], { home: server.dir, env });
    expect(JSON.parse(json.stdout)).toEqual({ items: [], total_items: 0 });

    // At 100 columns the request id gives way (a unique prefix), not the summary.
    const narrow = await runCliTty(['audit', 'list', '--action', 'user.create', '--target-id', user.id], { home: server.dir, env, columns: 100 });
    expect(narrow.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toContain(`created the user ${user.nickname}`);
    const denied = await runCli(['audit', 'list'], { home: server.dir, env: envFor(server, creds) });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/Only project administrators \(role Admins\) may read the audit log \(forbidden, HTTP 403\)/);
  });

  it('takes a nickname, a role name or an id prefix for --target-id, and checks --target-type and --action first', async () => {
    const env = envFor(server);
    const { user } = await createUserWithKey(server, { nickname: `target${Date.now() % 100000}` });
    expect((await runCli(['users', 'suspend', user.nickname, '--reason', 'spam', '--yes'], { home: server.dir, env })).code).toBe(0);
    const acts = async (...args: string[]) => {
      const run = await runCli(['audit', 'list', ...args], { home: server.dir, env });
      expect(run.code, run.stderr).toBe(0);
      return tsvRows(run.stdout).map((r) => r[2]);
    };
    // By nickname, by an id prefix, and with the type: the suspension and the creation, both on a user.
    expect(await acts('--target-id', user.nickname)).toEqual(['user.suspend', 'user.create']);
    expect(await acts('--target-id', user.id.slice(0, 12))).toEqual(['user.suspend', 'user.create']);
    expect(await acts('--target-type', 'user', '--target-id', user.nickname)).toEqual(['user.suspend', 'user.create']);
    // Spelt as reports spell their types, it is the same.
    expect(await acts('--target-type', 'User', '--target-id', user.nickname)).toEqual(['user.suspend', 'user.create']);
    const role = await runCli(['roles', 'create', '--name', `Auditors${Date.now() % 100000}`, '--json'], { home: server.dir, env });
    expect(role.code, role.stderr).toBe(0);
    expect(await acts('--target-type', 'permission_set', '--target-id', JSON.parse(role.stdout).name)).toEqual(['permission_set.create']);
    expect(await acts('--target-type', 'permission-set', '--target-id', JSON.parse(role.stdout).name)).toEqual(['permission_set.create']);

    // With --action and no --target-type, a prefix names a record of the action's resource: here a status.
    const post = await runCli(['statuses', 'create', '--user', user.nickname, '--content', 'buy now', '--json'], { home: server.dir, env });
    expect(post.code, post.stderr).toBe(0);
    const statusId = JSON.parse(post.stdout).id as string;
    expect((await runCli(['statuses', 'delete', statusId, '--yes'], { home: server.dir, env })).code).toBe(0);
    expect(await acts('--action', 'status.remove', '--target-id', statusId.slice(0, 14))).toEqual(['status.remove']);

    for (const [args, message] of [
      [['--target-type', 'Member'], /--target-type: no target type "member"; the target types are page_access_request, .*\buser\b/],
      [['--action', 'user.delete'], /--action: no action "user.delete"; the actions are page_access_request.accept/],
      [['--target-type', 'webhook_delivery', '--target-id', 'abcdef12'], /--target-id: give the webhook delivery's whole id/],
      [['--target-id', 'nobody-by-that-name'], /No user with the id or nickname "nobody-by-that-name"/],
    ] as const) {
      const run = await runCli(['audit', 'list', ...args], { home: server.dir, env });
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.code, args.join(' ')).toBe(message.source.startsWith('No user') ? 1 : 2);
    }
  });
});
