import { describe, expect, it } from 'vitest';
import { call, postingPage, removedByOwner } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, tableAt, tsvRows } from './support.js';

/** `statuses get` and `comments get` as an Admin reads them: who removed it by name, and the author's suspension. */
const server = useServer();
const fields = async (args: string[]) => {
  const run = await runCli(args, { home: server.dir, env: envFor(server) });
  expect(run.code, run.stderr).toBe(0);
  return new Map(tsvRows(run.stdout).map(([k, v]) => [k!, v]));
};

describe('statuses get and comments get, as an Admin', () => {
  it('name who removed it, beside their id', async () => {
    const { owner, status, comment } = await removedByOwner(server, 'Get Club', { status: 'taken down', comment: 'taken too' });
    for (const shown of [await fields(['statuses', 'get', status]), await fields(['comments', 'get', comment])]) {
      expect(shown.get('removed_by')).toBe(owner.user.id);
      expect(shown.get('removed by')).toBe(owner.user.nickname);
    }
  });

  it('say that the author is suspended, and so the content hidden from all but Admins, until when', async () => {
    const { poster, post } = await postingPage(server, 'Hidden Club');
    const status = await post('while suspended');
    const comment = (await call(server, 'POST', '/comments', { as: poster.creds, body: { user_id: poster.user.id, status_id: status, content: 'also hidden' } })).body.id as string;
    expect((await fields(['statuses', 'get', status])).get('user')).toBe(poster.user.nickname);
    const until = '2031-01-01T00:00:00.000Z';
    expect((await call(server, 'PUT', `/users/${poster.user.id}/suspension`, { body: { reason: 'spam', until } })).status).toBe(200);
    for (const shown of [await fields(['statuses', 'get', status]), await fields(['comments', 'get', comment])])
      expect(shown.get('user')).toBe(`${poster.user.nickname} (suspended until ${until}: hidden from all but Admins)`);
  });
});

describe('statuses list at 110 columns, as an Admin', () => {
  it('keeps the suspension of an author beside the words, leaving out the counts and the time first', async () => {
    const { poster, reader, page, post } = await postingPage(server, 'Wide Club');
    await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: page.id, user_id: reader.user.id } });
    await call(server, 'POST', '/statuses', { as: reader.creds, body: { user_id: reader.user.id, page_id: page.id, content: 'A status from someone in good standing, long enough to fill the row' } });
    await post('Cheap watches, cheap pills, cheap everything: follow the link in my profile for more');
    const until = '2031-01-01T00:00:00.000Z';
    expect((await call(server, 'PUT', `/users/${poster.user.id}/suspension`, { body: { reason: 'spam', until } })).status).toBe(200);
    const { head, rows, left } = await tableAt(110, ['statuses', 'list', '--page-id', page.id], server);
    expect(head).toContain('suspended');
    expect(left).toMatch(/created/);
    expect(left).not.toMatch(/suspended/);
    expect(rows.map((r) => r[head.indexOf('suspended')])).toEqual([expect.stringMatching(/^until 20/), '-']);
  });
});

describe('statuses list at 80 columns, as an Admin', () => {
  it('says until which day an author is suspended, not cut inside the date (a suspension to a midnight, as --until DATE gives)', async () => {
    const { poster, page, post } = await postingPage(server, 'Eighty Club');
    await post('Cheap watches, cheap pills, cheap everything: follow the link in my profile for more');
    expect((await call(server, 'PUT', `/users/${poster.user.id}/suspension`, { body: { reason: 'spam', until: '2031-01-24' } })).status).toBe(200);
    const { head, rows } = await tableAt(80, ['statuses', 'list', '--page-id', page.id], server);
    expect(head.slice(0, 3)).toEqual(['id', 'author', 'content']);
    expect(rows[0]![head.indexOf('suspended')]).toBe('until 2031-01-24');
    expect(rows[0]![2]).toMatch(/^Cheap watches/);
    // A suspension to another time of day: to the minute, as every time in a narrow table.
    expect((await call(server, 'PUT', `/users/${poster.user.id}/suspension`, { body: { reason: 'spam', until: '2031-01-24T18:30:00Z' } })).status).toBe(200);
    const picked = await tableAt(80, ['statuses', 'list', '--page-id', page.id, '--fields', 'id,content,suspended'], server);
    expect(picked.rows[0]![picked.head.indexOf('suspended')]).toBe('until 2031-01-24 18:30Z');
  });
});

describe('statuses list at 70 columns, as an Admin', () => {
  it('keeps the words: the suspension outlasts the counts and the time, not what was said', async () => {
    const { poster, page, post } = await postingPage(server, 'Narrow Club');
    await post('Cheap watches, cheap pills, cheap everything: follow the link in my profile for more');
    expect((await call(server, 'PUT', `/users/${poster.user.id}/suspension`, { body: { reason: 'spam', until: '2031-01-01T00:00:00.000Z' } })).status).toBe(200);
    const { head, rows, left } = await tableAt(70, ['statuses', 'list', '--page-id', page.id], server);
    expect(head).toContain('content');
    expect(rows[0]![head.indexOf('content')]).toMatch(/^Cheap watches/);
    expect(left).not.toMatch(/content/);
  });
});
