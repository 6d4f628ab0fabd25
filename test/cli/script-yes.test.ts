import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor } from './support.js';

/**
 * A script passes `--yes` to every command that acts (README, "Commands"): those that ask before they act skip the
 * question, and those that never ask take it too, rather than refuse it as an unknown option (exit 2).
 */
const server = useServer();
const run = (args: string[], creds = server.admin) => runCli(args, { home: server.dir, env: envFor(server, creds) });

/** The commands that change nothing: they read, or set up the client or the server. */
const READING = [
  'serve', 'admin list-keys', 'login', 'whoami', 'logout', 'profiles use', 'profiles list', 'users list', 'users get', 'users export',
  'pages list', 'pages get', 'page-configs list', 'page-configs get', 'follows list', 'follows get', 'permissions show', 'roles list',
  'roles get', 'access-requests list', 'invites list', 'invites get', 'webhooks list', 'webhooks get', 'webhooks deliveries',
  'notifications list', 'notifications watch', 'statuses get', 'statuses comments', 'statuses list', 'comments get', 'likes list',
  'likes get', 'stream', 'events list', 'events get', 'events attendees', 'audit list', 'keys list', 'reports list', 'reports get',
  'removed list', 'openapi', 'completion',
];

describe('--yes', () => {
  it('is an option of every command that acts, and of none of those that only read', async () => {
    // The options of each command, as the completion script lists them (`'users unsuspend') echo '--yes -y …'`).
    const script = (await runCli(['completion', 'bash'], { home: server.dir })).stdout;
    const optionsBlock = script.slice(script.indexOf('_agora_options() {'), script.indexOf('_agora_value_options() {'));
    const options = new Map([...optionsBlock.matchAll(/^ {4}'([a-z -]+)'\) echo '([^']*)' ;;$/gm)].map(([, path, flags]) => [path!, flags!.split(' ')]));
    const leaves = [...options.keys()].filter((path) => ![...options.keys()].some((other) => other.startsWith(`${path} `)));
    expect(leaves.length).toBeGreaterThan(80);
    expect(leaves.filter((path) => !options.get(path)!.includes('--yes'))).toEqual(READING);
  });

  it('goes with the acting commands that never ask: they act, exit 0', async () => {
    const [owner, asker, invited] = [await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server)];
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { privacy: 'private', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
    const request = await call(server, 'POST', '/page_access_requests', { as: asker.creds, body: { page_id: page.id, user_id: asker.user.id } });
    const invites = await call(server, 'POST', '/invites', {
      as: owner.creds,
      body: { target_type: 'Page', target_id: page.id, user_id: owner.user.id, user_target_ids: [invited.user.id] },
    });
    const report = await call(server, 'POST', '/reports', { as: asker.creds, body: { user_id: asker.user.id, target_type: 'User', target_id: invited.user.id, reason: 'spam' } });
    const runs = [
      ['access-requests', 'accept', request.body.id, '--yes'],
      ['invites', 'accept', invites.body.success[0].id, '--yes'],
      ['reports', 'dismiss', report.body.id, '--yes'],
      ['users', 'set-role', asker.user.nickname, '--role', 'Members', '--yes'],
      ['users', 'unsuspend', invited.user.nickname, '-y'],
      ['statuses', 'create', '--content', 'posted by a script', '--user', owner.user.nickname, '--yes'],
    ];
    for (const args of runs) {
      const done = await run(args);
      expect(done.code, `${args.slice(0, 2).join(' ')}: ${done.stderr}`).toBe(0);
    }
    const members = await call(server, 'GET', `/follows?followable_type=Page&followable_id=${page.id}`);
    expect(members.body.total_items).toBe(3);
    expect((await call(server, 'GET', `/reports/${report.body.id}`)).body.state).toBe('dismissed');
  });
});
