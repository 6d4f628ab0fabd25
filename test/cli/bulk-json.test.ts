import { describe, expect, it } from 'vitest';
import { call, postingPage, createKeyFor, createPage, createUser, createUserWithKey } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor } from './support.js';

/**
 * The verbs that act on several records: `--json` says each success as a JSON document on stdout, each refusal one
 * on stderr; `-` reads the records from a pipe, our own tables' header rows included, and an empty pipe does nothing.
 */
const server = useServer();
const run = (args: string[], creds = server.admin, input?: string) => runCli(args, { home: server.dir, env: envFor(server, creds), input });
const documents = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('verbs over several records', () => {
  it('prints each record done, one document a line, as one id alone does; refusals stay on stderr with their id', async () => {
    const { owner, poster: bob, reader, config, post } = await postingPage(server, 'Pond');
    const [gone, one, two, alone] = [await post('gone'), await post('one'), await post('two'), await post('alone')];
    expect((await call(server, 'DELETE', `/statuses/${gone}`, { as: bob.creds })).status).toBe(204);

    // A 204 each: the id and what became of it; the refused one on stderr only.
    const removed = await run(['statuses', 'delete', gone, one, two, '--yes', '--json'], owner.creds);
    expect(removed.code).toBe(1);
    expect(documents(removed.stdout)).toEqual([
      { id: one, result: 'removed' },
      { id: two, result: 'removed' },
    ]);
    expect(documents(removed.stderr)[0]).toMatchObject({ error: { code: 'not_found' }, id: gone });
    // One id alone: the same document.
    const single = await run(['statuses', 'delete', alone, '--yes', '--json'], owner.creds);
    expect([single.code, documents(single.stdout)]).toEqual([0, [{ id: alone, result: 'removed' }]]);

    // Reports: the report as the API answers it, settled now or settled already by an earlier one of the run.
    const kept = [await post('first of two'), await post('second of two')];
    const reports: string[] = [];
    for (const [i, target] of [kept[0], kept[0], kept[1]].entries()) {
      const as = i === 1 ? owner.creds : reader.creds;
      const me = i === 1 ? owner.user.id : reader.user.id;
      const made = await call(server, 'POST', '/reports', { as, body: { user_id: me, target_type: 'Status', target_id: target, reason: 'spam' } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      reports.push(made.body.id);
    }
    const resolved = await run(['reports', 'resolve', '-', '--action', 'none', '--json'], owner.creds, reports.join('\n'));
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(documents(resolved.stdout).map((r) => [r.id, r.state, r.resolution])).toEqual(reports.map((id) => [id, 'resolved', 'none']));
    const another = (await call(server, 'POST', '/reports', { as: reader.creds, body: { user_id: reader.user.id, target_type: 'User', target_id: bob.user.id, reason: 'spam' } })).body.id;
    const dismissed = await run(['reports', 'dismiss', another, '--json']);
    expect(documents(dismissed.stdout)).toMatchObject([{ id: another, state: 'dismissed', target: { user: { id: bob.user.id } } }]);

    // Keys and invites, each through the same run over its records.
    const [k1, k2] = [await createKeyFor(server, reader.user.id), await createKeyFor(server, reader.user.id)];
    const listed = (await call(server, 'GET', `/api_keys?user_id=${reader.user.id}`)).body.items as { id: string; api_key: string }[];
    const keyIds = [k1, k2].map((k) => listed.find((l) => l.api_key === k.key)!.id);
    const revoked = await run(['keys', 'revoke', ...keyIds, '--yes', '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(documents(revoked.stdout)).toEqual(keyIds.map((id) => ({ id, result: 'revoked' })));
    const secret = await createPage(server, { name: 'Den', privacy: 'secret', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
    const [u1, u2] = [await createUser(server), await createUser(server)];
    const sent = await call(server, 'POST', '/invites', { as: owner.creds, body: { target_type: 'Page', target_id: secret.id, user_id: owner.user.id, user_target_ids: [u1.id, u2.id] } });
    const inviteIds = (sent.body.success as { id: string }[]).map((i) => i.id);
    const withdrawn = await run(['invites', 'withdraw', ...inviteIds, '--yes', '--json'], owner.creds);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(documents(withdrawn.stdout)).toEqual(inviteIds.map((id) => ({ id, result: 'withdrawn' })));
  });

  it('- skips a header row of field names, not only one headed id; a pipe with no ids does nothing (exit 0), a terminal with none is exit 2', async () => {
    const owner = await createUserWithKey(server);
    const [k1, k2] = [await createKeyFor(server, owner.user.id), await createKeyFor(server, owner.user.id)];
    // The first column is what is read: here the api_key values, after a header that does not start with `id`.
    const table = await run(['keys', 'list', '--user', owner.user.nickname, '--fields', 'api_key,last used', '--header']);
    expect(table.stdout.split('\n')[0]).toBe('api_key\tlast used');
    const revoked = await run(['keys', 'revoke', '-', '--yes'], server.admin, table.stdout);
    expect(revoked.code, revoked.stderr).toBe(0);
    const left = (await call(server, 'GET', `/api_keys?user_id=${owner.user.id}`)).body.items as { api_key: string }[];
    expect(left.map((k) => k.api_key)).not.toContain(k1.key);
    expect(left.map((k) => k.api_key)).not.toContain(k2.key);
    // Roles by name, after a header of one column.
    const role = await call(server, 'POST', '/permission_sets', { body: { name: `helpers_${owner.user.nickname}`, permissions: {} } });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const deleted = await run(['roles', 'delete', '-', '--yes'], server.admin, `name\n${role.body.name}\n`);
    expect(deleted.code, deleted.stderr).toBe(0);

    // Nothing to act on, piped in: a list that came out empty (with its header only, alike) is no failure: said, exit 0.
    for (const [input, said] of [['', ''], ['\n \n', ''], ['id\n', ' (only a header line, "id")'], ['id\tname\n', ' (only a header line, "id name")']]) {
      const none = await run(['statuses', 'delete', '-', '--yes'], server.admin, input);
      expect([none.code, none.stdout, none.stderr]).toEqual([0, '', `Nothing to do: no ids on standard input${said}.\n`]);
    }
    // At a terminal (a person who forgot the pipe), `-` says it reads what is typed; nothing typed is a usage error.
    const reading = 'Reading ids from the terminal, one a line; Ctrl-D to end (or pipe them in).\n';
    const typed = await runCliTty(['statuses', 'delete', '-', '--yes'], { home: server.dir, env: envFor(server), timeoutMs: 20_000 });
    expect([typed.code, typed.stdout]).toEqual([2, `${reading}error: no ids on standard input\n`]);
  });

  it('- with an empty queue piped in does nothing, exit 0, in every verb that reads ids: a cron job\'s run is no failure', async () => {
    const quiet = await createUserWithKey(server);
    const open = await run(['reports', 'list', '--state', 'open', '--user', quiet.user.nickname, '--fields', 'id'], quiet.creds);
    expect([open.code, open.stdout], open.stderr).toEqual([0, '']);
    const verbs = [
      ['reports', 'resolve', '-', '--action', 'remove'],
      ['reports', 'dismiss', '-'],
      ['statuses', 'delete', '-'],
      ['comments', 'delete', '-'],
      ['likes', 'delete', '-'],
      ['access-requests', 'accept', '-'],
      ['access-requests', 'refuse', '-'],
      ['invites', 'accept', '-'],
      ['invites', 'refuse', '-'],
      ['invites', 'withdraw', '-'],
      ['follows', 'delete', '-'],
      ['keys', 'revoke', '-'],
      ['roles', 'delete', '-'],
      ['webhooks', 'remove', '-'],
    ];
    const runs = await Promise.all(verbs.map((args) => run([...args, '--json'], quiet.creds, open.stdout)));
    expect(runs.map((r, i) => [verbs[i]!.slice(0, 2).join(' '), r.code, r.stdout, r.stderr])).toEqual(
      verbs.map((args) => [args.slice(0, 2).join(' '), 0, '', 'Nothing to do: no ids on standard input.\n']),
    );
  });

  it('- with nothing piped in is still exit 2 when the options are wrong: the mistake shows before the queue fills', async () => {
    const misused = [
      [['--action', 'none', '--reason', 'spam'], 'error: --reason is for --action remove or suspend: none keeps no reason\n'],
      [['--action', 'remove', '--until', '2099-01-01'], 'error: --until is for --action suspend only\n'],
      [['--action', 'suspend', '--reason', 'spam', '--until', 'tomorrow'], /^error: --until/],
      [['--action', 'suspend'], 'error: missing --reason (asked for on a terminal; required otherwise)\n'],
      [[], 'error: missing --action (asked for on a terminal; required otherwise)\n'],
    ] as const;
    for (const [options, said] of misused) {
      const refused = await run(['reports', 'resolve', '-', ...options], server.admin, '');
      expect([refused.code, refused.stdout], `${options.join(' ')}: ${refused.stderr}`).toEqual([2, '']);
      if (typeof said === 'string') expect(refused.stderr).toBe(said);
      else expect(refused.stderr).toMatch(said);
    }
  });
});
