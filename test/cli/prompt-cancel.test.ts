import { describe, expect, it } from 'vitest';
import { call, createUserWithKey, twoUserReports } from '../helpers/api.js';
import { runCliTty } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor } from './support.js';

/** Ctrl-C at a question says what a "no" says (nothing was changed, or how many were done), and exits 130. */
const server = useServer();
const CTRL_C = '\u0003';
const tty = (args: string[], when: RegExp[]) =>
  runCliTty(args, { home: server.dir, env: envFor(server), answers: when.map((w, i) => ({ when: w, send: i === when.length - 1 ? CTRL_C : 'y\r' })) });

describe('Ctrl-C at a question', () => {
  it("at users suspend's reason and at a removal's confirmation: said as a no is, exit 130, nothing done", async () => {
    const linus = await createUserWithKey(server);
    const atReason = await tty(['users', 'suspend', String(linus.user.nickname)], [/Why \(told to them\)/]);
    expect(atReason.code, atReason.stdout).toBe(130);
    expect(atReason.stdout).toMatch(/Cancelled: nothing was changed\.\n$/);
    expect((await call(server, 'GET', `/users/${linus.user.id}`)).body.suspension).toBeNull();

    const status = (await call(server, 'POST', '/statuses', { as: linus.creds, body: { user_id: linus.user.id, content: 'kept' } })).body.id as string;
    const atConfirm = await tty(['statuses', 'delete', status], [/Remove .*status "kept".*\?/]);
    expect(atConfirm.code, atConfirm.stdout).toBe(130);
    expect(atConfirm.stdout).toMatch(/Cancelled: nothing was changed\.\n$/);
    expect((await call(server, 'GET', `/statuses/${status}`)).body.removed_at).toBeUndefined();
  });

  it('in a run of several, after one was done: says how many, not "nothing was changed", exit 130', async () => {
    const { dave, first, second } = await twoUserReports(server);
    // Yes to the run, then Ctrl-C at replacing dave's suspension: carol's report was settled before it.
    const stopped = await tty(['reports', 'resolve', first, second, '--action', 'suspend', '--reason', 'ring'], [/Suspend whoever 2 reports are about.*\?/, /replace that with .*\?/]);
    expect(stopped.code, stopped.stdout).toBe(130);
    expect(stopped.stdout).toContain(`Stopped at Report ${second}, interrupted: 1 of 2 done.`);
    expect(stopped.stdout).not.toMatch(/nothing was changed|before this:/);
    expect((await call(server, 'GET', `/users/${dave.user.id}`)).body.suspension).toMatchObject({ reason: 'earlier' });
  });
});
