import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
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

    const denied = await runCli(['audit', 'list'], { home: server.dir, env: envFor(server, creds) });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/Only project administrators \(role Admins\) may read the audit log \(forbidden, HTTP 403\)/);
  });
});
