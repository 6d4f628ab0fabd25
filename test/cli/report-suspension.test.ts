import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUserWithKey, twoUserReports } from '../helpers/api.js';
import { runCli, runCliTty } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor } from './support.js';

/** `reports resolve --action suspend` on someone already suspended replaces that suspension, as `users suspend` does, and says so. */
const server = useServer();
const run = (args: string[], input?: string) => runCli(args, { home: server.dir, env: envFor(server), input });

describe('reports resolve --action suspend of someone suspended', () => {
  it('asks at a terminal naming the suspension in force; a script goes on and says on stderr what it replaced', async () => {
    const [owner, mallory, bob, reader] = [await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server)];
    const config = await createPageConfiguration(server);
    const page = await createPage(server, { name: 'Marsh', privacy: 'public', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
    const post = async (who: typeof bob, content: string) => {
      await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: page.id, user_id: who.user.id } });
      return (await call(server, 'POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, page_id: page.id, content } })).body.id as string;
    };
    const report = async (target_type: string, target_id: string) => {
      const made = await call(server, 'POST', '/reports', { as: reader.creds, body: { user_id: reader.user.id, target_type, target_id, reason: 'spam' } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.id as string;
    };
    const [byMallory, bob1, bob2] = [await post(mallory, 'cheap pills'), await post(bob, 'buy now'), await post(bob, 'buy again')];
    // Reported before her suspension hides her status from the reporter.
    const onHerStatus = await report('Status', byMallory);
    const until = '2030-01-01T00:00:00.000Z';
    expect((await call(server, 'PUT', `/users/${mallory.user.id}/suspension`, { body: { reason: 'first warning', until } })).status).toBe(200);
    const suspensionOf = async (id: string) => (await call(server, 'GET', `/users/${id}`)).body.suspension as { reason: string; until: string | null } | null;

    // At a terminal, one report on mallory: the question names the suspension in force; "n" leaves it.
    const onMallory = await report('User', mallory.user.id);
    const declined = await runCliTty(['reports', 'resolve', onMallory, '--action', 'suspend', '--reason', 'second'], {
      home: server.dir,
      env: envFor(server),
      answers: [{ when: /\?/, send: 'n\r' }],
    });
    expect(declined.code).toBe(0);
    expect(declined.stdout).toContain(`${mallory.user.nickname} is suspended until ${until} ("first warning"): replace that with a suspension until lifted ("second")?`);
    expect(await suspensionOf(mallory.user.id)).toMatchObject({ reason: 'first warning', until });
    // The "no" is said (nothing was changed), and is not a failure.
    expect(declined.stdout).toContain('Cancelled: nothing was changed.');

    // A script: mallory's suspension is replaced, and stderr says which one; bob's two reports suspend him once,
    // the second replacing nothing that was in force before the run.
    const reports = [onHerStatus, await report('Status', bob1), await report('Status', bob2)];
    const settled = await run(['reports', 'resolve', '-', '--action', 'suspend', '--reason', 'spam ring'], reports.join('\n'));
    expect(settled.code, settled.stderr).toBe(0);
    expect(settled.stderr.match(/^Replaced .*$/gm)).toEqual([`Replaced ${mallory.user.nickname}'s suspension until ${until} ("first warning")`]);
    expect(await suspensionOf(mallory.user.id)).toMatchObject({ reason: 'spam ring', until: null });
    expect(await suspensionOf(bob.user.id)).toMatchObject({ reason: 'spam ring', until: null });
    // With --yes the same: it goes on, and says so.
    const again = await run(['reports', 'resolve', onMallory, '--action', 'suspend', '--reason', 'third', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`Replaced ${mallory.user.nickname}'s suspension until lifted ("spam ring")`);
  });

  it('says how many were done when a "no" stops a run of several at a terminal', async () => {
    const { carol, dave, first, second } = await twoUserReports(server);
    // Yes to the run, then no to replacing dave's suspension: carol's report was settled before that "no".
    const stopped = await runCliTty(['reports', 'resolve', first, second, '--action', 'suspend', '--reason', 'ring'], {
      home: server.dir,
      env: envFor(server),
      answers: [
        { when: /Suspend whoever 2 reports are about.*\?/, send: 'y\r' },
        { when: /replace that with a suspension until lifted \("ring"\)\?/, send: 'n\r' },
      ],
    });
    expect(stopped.code, stopped.stdout).toBe(0);
    expect(stopped.stdout).toContain(`Stopped at Report ${second}, declined: 1 of 2 done.`);
    expect(stopped.stdout).not.toContain('nothing was changed');
    expect((await call(server, 'GET', `/users/${carol.user.id}`)).body.suspension).toMatchObject({ reason: 'ring' });
    expect((await call(server, 'GET', `/users/${dave.user.id}`)).body.suspension).toMatchObject({ reason: 'earlier' });
  });
});
