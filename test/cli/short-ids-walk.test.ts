import { describe, expect, it } from 'vitest';
import { call, createUserWithKey } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor } from './support.js';

/**
 * A status's id prefix is looked for in the statuses list, newest first: ids begin with their time, so the walk
 * stops at the first page whose last id is below the prefix, instead of reading every status of the community.
 * Counted in the server's own request log (`serve --log`).
 */
const server = useServer({ args: ['--log'] });
/** How many times the statuses list was read: the server's log is JSON lines when piped (`"req":{"method":"GET","url":…}`). */
const listReads = () => server.errors().split('\n').filter((line) => /"method":"GET","url":"[^"]*\/statuses[?"]/.test(line)).length;
const auditReads = () => server.errors().split('\n').filter((line) => /"method":"GET","url":"[^"]*\/audit_log[?"]/.test(line)).length;

describe('a status id prefix among many statuses', () => {
  it('is found in the first page of the list when the status is recent, and every match still counts', async () => {
    const me = (await call(server, 'GET', '/me')).body.id as string;
    const posted: string[] = [];
    for (let batch = 0; batch < 10; batch++)
      posted.push(
        ...(await Promise.all(
          Array.from({ length: 25 }, async (_, i) => (await call(server, 'POST', '/statuses', { body: { user_id: me, content: `status ${batch}-${i}` } })).body.id as string),
        )),
      );
    const newest = posted.reduce((a, b) => (a > b ? a : b));
    const before = listReads();
    const got = await runCli(['statuses', 'get', newest.slice(0, 20), '--json'], { home: server.dir, env: envFor(server, server.admin) });
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).id).toBe(newest);
    expect(listReads() - before).toBe(1);

    // The oldest status is in the last page: the walk goes there (3 pages of 100), and finds it.
    const oldest = posted.reduce((a, b) => (a < b ? a : b));
    const walked = listReads();
    const found = await runCli(['statuses', 'get', oldest.slice(0, 20), '--json'], { home: server.dir, env: envFor(server, server.admin) });
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout).id).toBe(oldest);
    expect(listReads() - walked).toBe(3);
  });

  it('a status removed by an Admin is found in the audit log by the entries removed since it was made, not the whole log', async () => {
    // 110 removals by an Admin first: more than one page of the log.
    const author = await createUserWithKey(server);
    const post = async (content: string) => {
      const made = await call(server, 'POST', '/statuses', { as: author.creds, body: { user_id: author.user.id, content } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.id as string;
    };
    // In batches: 110 connections opened at once from one address would pass the limit on connections not yet
    // authenticated (100), and some would be answered 429.
    const old: string[] = [];
    for (let batch = 0; batch < 11; batch++) old.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => post(`old ${batch}-${i}`)))));
    for (const id of old) expect((await call(server, 'DELETE', `/statuses/${id}?reason=spam`)).status).toBe(204);
    const recent = await post('removed just now');
    expect((await call(server, 'DELETE', `/statuses/${recent}?reason=spam`)).status).toBe(204);

    const before = auditReads();
    const got = await runCli(['statuses', 'get', recent.slice(0, 20), '--json'], { home: server.dir, env: envFor(server, server.admin) });
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: recent, removal_reason: 'spam' });
    expect(auditReads() - before).toBe(1);

    // One removed long ago is further down the log: the walk goes on to it.
    const further = auditReads();
    const first = await runCli(['statuses', 'get', old[0]!.slice(0, 20), '--json'], { home: server.dir, env: envFor(server, server.admin) });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).id).toBe(old[0]);
    expect(auditReads() - further).toBe(2);
  });
});
