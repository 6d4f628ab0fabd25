import { describe, expect, it } from 'vitest';
import { call, postingPage } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, tsvRows } from './support.js';

/** `statuses get` and `comments get` as an Admin reads them: who removed it by name. */
const server = useServer();
const fields = async (args: string[]) => {
  const run = await runCli(args, { home: server.dir, env: envFor(server) });
  expect(run.code, run.stderr).toBe(0);
  return new Map(tsvRows(run.stdout).map(([k, v]) => [k!, v]));
};

describe('statuses get and comments get, as an Admin', () => {
  it('name who removed it, beside their id', async () => {
    const { owner, poster, post } = await postingPage(server, 'Get Club');
    const status = await post('taken down');
    const comment = (await call(server, 'POST', '/comments', { as: poster.creds, body: { user_id: poster.user.id, status_id: await post('stays'), content: 'taken too' } })).body.id as string;
    expect((await call(server, 'DELETE', `/statuses/${status}`, { as: owner.creds })).status).toBe(204);
    expect((await call(server, 'DELETE', `/comments/${comment}`, { as: owner.creds })).status).toBe(204);
    for (const shown of [await fields(['statuses', 'get', status]), await fields(['comments', 'get', comment])]) {
      expect(shown.get('removed_by')).toBe(owner.user.id);
      expect(shown.get('removed by')).toBe(owner.user.nickname);
    }
  });
});
