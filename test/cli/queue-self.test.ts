import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createUserWithKey } from '../helpers/api.js';
import { useServer } from '../helpers/server.js';
import { Terminal } from '../helpers/tmux.js';
import { envFor, freshHome } from './support.js';

/** `agora queue` at a real terminal, run by an Admin whose own status is reported. */
const server = useServer();
let term: Terminal;

beforeAll(async () => {
  term = new Terminal(freshHome(server), { ...envFor(server), NO_COLOR: '1' }, { agora: ['queue'], width: 100, height: 24 });
});
afterAll(async () => term?.close());

describe('an Admin whose own status is reported', () => {
  it('is told at s that they cannot suspend themselves, before any reason is asked; x then y says one report was dismissed', async () => {
    const me = (await call(server, 'GET', '/me')).body as { id: string; nickname: string };
    const status = (await call(server, 'POST', '/statuses', { body: { user_id: me.id, content: 'welcome, all' } })).body.id as string;
    const reader = await createUserWithKey(server);
    const made = await call(server, 'POST', '/reports', { as: reader.creds, body: { user_id: reader.user.id, target_type: 'Status', target_id: status, reason: 'other' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await term.waitFor(new RegExp(`› report +- +${me.nickname}: welcome, all`));

    await term.keys('s');
    await term.waitFor(/you cannot suspend yourself: d removes the content, x dismisses/);
    expect(term.screen(true)).not.toMatch(/reason \[/);
    expect((await call(server, 'GET', `/users/${me.id}`)).body.suspension).toBeNull();

    await term.keys('x');
    await term.waitFor(new RegExp(`Dismiss the report on ${me.nickname}'s status "welcome, all"\\? \\(y/N\\)`));
    await term.keys('y');
    await term.waitFor(new RegExp(`dismissed the report on ${me.nickname}'s status "welcome, all"`));
    expect((await call(server, 'GET', `/reports/${made.body.id}`)).body.state).toBe('dismissed');
  });
});
