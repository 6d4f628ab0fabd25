import { describe, expect, it } from 'vitest';
import { call, createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor } from './support.js';

/** What `reports list` and `reports get` say of a target they cannot quote: removed, or hidden by a suspension. */
const server = useServer();
const run = (args: string[], input?: string) => runCli(args, { home: server.dir, env: envFor(server), input });

describe('a report whose content is not quoted', () => {
  it('says the content was removed, not that its author is suspended, once it is removed', async () => {
    const [author, reader] = [await createUserWithKey(server), await createUserWithKey(server)];
    const post = async (content: string) =>
      (await call(server, 'POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content } })).body.id as string;
    const report = async (target_id: string) =>
      (await call(server, 'POST', '/reports', { as: reader.creds, body: { user_id: reader.user.id, target_type: 'Status', target_id, reason: 'spam' } }))
        .body.id as string;
    const [removedStatus, dismissedStatus] = [await post('cheap pills'), await post('cheap watches')];
    const [resolved, dismissed] = [await report(removedStatus), await report(dismissedStatus)];
    expect((await run(['reports', 'resolve', resolved, '--action', 'remove', '--yes'])).code).toBe(0);
    // Dismissed first, removed after: the removal empties this report's excerpt too.
    expect((await run(['reports', 'dismiss', dismissed])).code).toBe(0);
    expect((await run(['statuses', 'delete', dismissedStatus, '--yes'])).code).toBe(0);

    const listed = await run(['reports', 'list', '--user', reader.user.id, '--fields', 'id,target']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(`${resolved}\tStatus (removed)\n${dismissed}\tStatus (removed)\n`);
    const shown = await run(['reports', 'get', resolved]);
    expect(shown.stdout).toContain(`target\t${removedStatus} (removed) by ${author.user.nickname}\n`);

    // Suspended, the author's content is hidden from all but Admins: its reporter reads that.
    const open = await report(await post('cheap bags'));
    expect((await call(server, 'PUT', `/users/${author.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
    const asReader = await runCli(['reports', 'list', '--state', 'open', '--fields', 'id,target'], {
      home: server.dir,
      env: envFor(server, reader.creds),
    });
    expect(asReader.stdout, asReader.stderr).toBe(`${open}\tStatus (hidden: its author is suspended)\n`);
    // Removed, then its author suspended: reports get says removed, as reports list does, not hidden.
    const readerEnv = { home: server.dir, env: envFor(server, reader.creds) };
    const [removedListed, removedShown] = [
      await runCli(['reports', 'list', '--state', 'resolved', '--fields', 'id,target'], readerEnv),
      await runCli(['reports', 'get', resolved], readerEnv),
    ];
    expect(removedListed.stdout).toContain(`${resolved}\tStatus (removed)\n`);
    expect(removedShown.stdout, removedShown.stderr).toContain(`target\t${removedStatus} (removed) by ${author.user.nickname}\n`);
  });
});
