import { describe, expect, it } from 'vitest';
import { call, createKeyFor, createUser } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { removeDir, startServer, useServer } from '../helpers/server.js';
import { afterAccessChange } from '../helpers/store-target.js';
import { envFor, tableAt, tsvRows } from './support.js';

const server = useServer();
const admin = (args: string[]) => runCli(['admin', ...args, '--db', server.db], { home: server.dir });

describe('agora admin list-keys and revoke-key', () => {
  it('lists pairs without secrets, and a revoked pair is refused by the running server from its next request (PostgreSQL: within the bound)', async () => {
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

    // The owner by nickname, as `keys list` and the other tables name users (the id stays in --json's user_id).
    const plain = await admin(['list-keys']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`${keys.items[0].id}\t${user.nickname}\t${creds.key}\t`);

    const revoked = await admin(['revoke-key', creds.key]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${creds.key} (${keys.items[0].id}) of user ${user.id}\n`);
    const refused = await afterAccessChange(() => call(server, 'GET', '/me', { as: creds }), (res) => res.status !== 200);
    expect(refused.status).toBe(401);

    const again = await admin(['revoke-key', keys.items[0].id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('error: API key not found\n');
  });

  it('revokes by an id prefix, as a table on a terminal shows the ids (none: exit 1; several: exit 2)', async () => {
    const user = await createUser(server);
    const [creds, other] = [await createKeyFor(server, user.id), await createKeyFor(server, user.id)];
    const [id, otherId] = JSON.parse((await admin(['list-keys', '--user', user.nickname, '--json'])).stdout).items.map((k: { id: string }) => k.id) as string[];
    // Made one after the other, the two ids share their first characters (their time): a prefix of both names two.
    let shared = 0;
    while (id![shared] === otherId![shared]) shared++;
    expect(shared).toBeGreaterThanOrEqual(6);
    const several = await admin(['revoke-key', id!.slice(0, shared)]);
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(new RegExp(`^error: \\d+ API keys have an id starting with ${id!.slice(0, shared)}: .*${otherId}`));
    expect((await call(server, 'GET', '/me', { as: other })).status).toBe(200);
    const unique = id!.slice(0, Math.max(16, shared + 1));
    const revoked = await admin(['revoke-key', unique]);
    expect(revoked.stderr).toBe('');
    expect(revoked.stdout).toBe(`revoked ${creds.key} (${id}) of user ${user.id}\n`);
    const gone = await admin(['revoke-key', unique]);
    expect([gone.code, gone.stderr]).toEqual([1, `error: No API key has an id starting with ${unique}\n`]);
  });
});

describe('agora keys list and revoke, over the API', () => {
  it("lists an owner's pairs by nickname, revokes by api_key value or id prefix after a question naming the owner, and checks every ref first", async () => {
    const user = await createUser(server);
    const [first, second, third] = [await createKeyFor(server, user.id), await createKeyFor(server, user.id), await createKeyFor(server, user.id)];
    const run = (args: string[], input?: string) => runCli(['keys', ...args], { home: server.dir, env: envFor(server), input });
    const listed = await run(['list', '--user', user.nickname, '--fields', 'id,owner,api_key']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = tsvRows(listed.stdout);
    expect(rows.map((r) => r.slice(1))).toEqual([first, second, third].map((k) => [user.nickname, k.key]));
    expect(listed.stdout).not.toContain(first.secret);
    const idOf = (key: string) => rows.find((r) => r[2] === key)![0]!;

    // A ref that names no key: nothing is revoked, not even the ones before it.
    const unknown = await run(['revoke', first.key, 'ak_nothing', '--yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No API key ak_nothing');
    expect((await call(server, 'GET', '/me', { as: first })).status).toBe(200);

    const asked = await runCliTty(['keys', 'revoke', first.key], { home: server.dir, env: envFor(server), answers: [{ when: /Revoke/, send: 'y\r' }] });
    expect(asked.stdout).toContain(`Revoke the API key ${first.key} of ${user.nickname}?`);
    expect(asked.code).toBe(0);
    expect((await call(server, 'GET', '/me', { as: first })).status).toBe(401);

    // From a script: a table piped in (`--fields id,api_key --header`), its first column read after the header; an
    // id prefix and a whole id, the second key named twice (its prefix, then its whole id): revoked once.
    const rowOf = (key: string, id = idOf(key)) => `${id}\t${key}\n`;
    const piped = await run(['revoke', '-', '--yes'], `id\tapi_key\n${rowOf(second.key, idOf(second.key).slice(0, 26))}${rowOf(third.key)}${rowOf(second.key)}`);
    expect(piped.stderr).toBe('');
    expect(piped.code, piped.stderr).toBe(0);
    for (const key of [second, third]) expect((await call(server, 'GET', '/me', { as: key })).status).toBe(401);
    expect(JSON.parse((await run(['list', '--user', user.id, '--json'])).stdout).total_items).toBe(0);

    const memberKey = await createKeyFor(server, user.id);
    const denied = await runCli(['keys', 'list'], { home: server.dir, env: envFor(server, memberKey) });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/HTTP 403/);
    // Only Admins revoke: a Member's run stops at the first refusal, not one refusal a key.
    const ids = rows.map((r) => r[0]!);
    const notAdmin = await runCli(['keys', 'revoke', ...ids, '--yes'], { home: server.dir, env: envFor(server, memberKey) });
    expect(notAdmin.code).toBe(1);
    expect(notAdmin.stderr.match(/HTTP 403/g)).toHaveLength(1);
  });

  it('at 80 columns, shows when each key was last used (never, for one not used yet): the creation time is left out first', async () => {
    const user = await createUser(server);
    const used = await createKeyFor(server, user.id);
    const unused = await createKeyFor(server, user.id);
    expect((await call(server, 'GET', '/me', { as: used })).status).toBe(200);
    const { head, rows, left } = await tableAt(80, ['keys', 'list', '--user', user.nickname], server);
    expect(head).toEqual(['id', 'owner', 'api_key', 'last used']);
    expect(left).toBe('created');
    expect(rows.map((r) => r[3])).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\dZ$/), 'never']);
    for (const [row, key] of rows.map((r, i) => [r, [used, unused][i]!] as const)) {
      expect(row[2]!.length, row[2]).toBeGreaterThanOrEqual(20);
      expect(key.key.startsWith(row[2]!.replace(/…$/, '')), row[2]).toBe(true);
    }
  });

  it('a "no" after a refusal still fails the run, saying what was done and where it stopped', async () => {
    const user = await createUser(server);
    const [gone, kept] = [await createKeyFor(server, user.id), await createKeyFor(server, user.id)];
    expect((await runCli(['keys', 'revoke', gone.key, '--yes'], { home: server.dir, env: envFor(server) })).code).toBe(0);
    const listed = JSON.parse((await runCli(['admin', 'list-keys', '--db', server.db, '--user', user.id, '--json'], { home: server.dir })).stdout);
    const keptId = listed.items[0].id as string;
    // The revoked key's id, from the audit log: refused (404; no question, it is in no list); then "no" to the next.
    const entry = JSON.parse((await runCli(['audit', 'list', '--action', 'api_key.revoke', '--per-page', '1', '--json'], { home: server.dir, env: envFor(server) })).stdout);
    const goneId = entry.items[0].target_id as string;
    const run = await runCliTty(['keys', 'revoke', goneId, keptId], {
      home: server.dir,
      env: envFor(server),
      answers: [{ when: new RegExp(`Revoke the API key ${kept.key}`), send: 'n\r' }],
    });
    expect(run.stdout).toContain(`error: API key ${goneId}: `);
    expect(run.stdout).toContain(`error: 0 of 2 done; 1 refused (said above); stopped at API key ${keptId}, declined`);
    expect(run.code).toBe(1);
    expect((await call(server, 'GET', '/me', { as: kept })).status).toBe(200);
    // A revoked key is in no list, but the audit log finds it by a prefix of its id.
    const audited = await runCli(['audit', 'list', '--target-type', 'api_key', '--target-id', goneId.slice(0, 12), '--fields', 'action'], { home: server.dir, env: envFor(server) });
    expect(audited.code, audited.stderr).toBe(0);
    expect(tsvRows(audited.stdout)).toEqual([['api_key.revoke'], ['api_key.create']]);
  });

  it('--help of a command that does not exist says so (exit 2), not the top-level help, nor the group help for a verb', async () => {
    for (const args of [['key', '--help'], ['help', 'key']]) {
      const result = await runCli(args, { home: server.dir });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe("error: unknown command 'key'\n(Did you mean keys?)\n");
    }
    for (const args of [['keys', 'revok', '--help'], ['help', 'keys', 'revok']]) {
      const result = await runCli(args, { home: server.dir });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^error: unknown command 'revok'\n\(Did you mean revoke\?\)/);
    }
    const verb = await runCli(['help', 'keys', 'revoke'], { home: server.dir });
    expect([verb.code, verb.stdout]).toEqual([0, expect.stringContaining('Usage: agora keys revoke [options] <key...>')]);
  });

  it('revokes the key in use last, and says so', async () => {
    const [mine, other] = [await createKeyFor(server), await createKeyFor(server)];
    const all = JSON.parse((await runCli(['keys', 'list', '--all', '--json'], { home: server.dir, env: envFor(server, mine) })).stdout).items as { id: string; api_key: string }[];
    const idOf = (key: string) => all.find((k) => k.api_key === key)!.id;
    // By ids, from a script: the key in use first on the line, revoked last, so the other is revoked too.
    const run = await runCli(['keys', 'revoke', idOf(mine.key), idOf(other.key), '--yes'], { home: server.dir, env: envFor(server, mine) });
    expect(run.code, run.stderr).toBe(0);
    const said = (run.stdout + run.stderr).split('\n').filter(Boolean);
    expect(said).toEqual([`API key ${other.key} (${idOf(other.key)}) revoked`, `API key ${mine.key} (${idOf(mine.key)}) revoked: it was the key you were using`]);
    for (const key of [mine, other]) expect((await call(server, 'GET', '/me', { as: key })).status).toBe(401);
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
