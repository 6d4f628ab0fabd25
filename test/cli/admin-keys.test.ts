import { describe, expect, it } from 'vitest';
import { call, createKeyFor, createUser } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { removeDir, startServer, useServer } from '../helpers/server.js';

const server = useServer();
const admin = (args: string[]) => runCli(['admin', ...args, '--db', server.db], { home: server.dir });

describe('agora admin list-keys and revoke-key', () => {
  it('lists pairs without secrets, and a revoked pair is refused by the running server from its next request', async () => {
    const user = await createUser(server);
    const creds = await createKeyFor(server, user.id);
    expect((await call(server, 'GET', '/me', { as: creds })).status).toBe(200);

    const listed = await admin(['list-keys', '--user', user.id, '--json']);
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout);
    expect(keys.items).toEqual([
      { id: expect.any(String), user_id: user.id, api_key: creds.key, created_at: expect.any(String), last_used_at: expect.any(String) },
    ]);
    expect(listed.stdout).not.toContain(creds.secret);

    const plain = await admin(['list-keys']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`${keys.items[0].id}\t${user.id}\t${creds.key}\t`);

    const revoked = await admin(['revoke-key', creds.key]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${creds.key} (${keys.items[0].id}) of user ${user.id}\n`);
    const refused = await call(server, 'GET', '/me', { as: creds });
    expect(refused.status).toBe(401);

    const again = await admin(['revoke-key', keys.items[0].id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('error: API key not found\n');
  });
});

describe('agora serve --log', () => {
  it('writes its logs to stderr: stdout carries only the server lines', async () => {
    const logged = await startServer({ args: ['--log'] });
    try {
      expect((await call(logged, 'GET', '/me')).status).toBe(200);
      expect(logged.output()).toMatch(/^listening on http:\/\/\S+\n$/);
    } finally {
      await logged.stop();
      removeDir(logged.dir);
    }
  });
});
