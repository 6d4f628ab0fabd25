import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createUser, createUserWithKey } from '../helpers/api.js';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';

/**
 * A page number is answered from the positions the server already found in the list (where earlier pages
 * started), while nothing was written: a write anywhere, by this server or another process on the same
 * file, and the same page number answers the list as it now is.
 */
let a: RunningServer;
let b: RunningServer;
beforeAll(async () => {
  a = await startServer();
  b = await startServer({ dir: a.dir });
});
afterAll(async () => {
  await b.stop();
  await a.stop();
  removeDir(a.dir);
});

const ids = async (server: RunningServer, url: string, as?: { key: string; secret: string }) => {
  const res = await call(server, 'GET', url, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items.map((f: { id: string }) => f.id) as string[];
};

/** Pages 2 to 4 of three, as the server answers them by number, and as they are in the whole list. */
const pagesOf = async (server: RunningServer, list: string, as?: { key: string; secret: string }) => {
  const all = await ids(server, `${list}per_page=100`, as);
  const byNumber = [];
  for (const page of [4, 2, 3]) byNumber.push(await ids(server, `${list}per_page=3&page=${page}`, as));
  return { byNumber, expected: [all.slice(9, 12), all.slice(3, 6), all.slice(6, 9)] };
};

describe('deep page numbers', () => {
  it('answer the list as it is after a delete by another process, then by this one', async () => {
    const { user, creds } = await createUserWithKey(a);
    const follows: string[] = [];
    for (let i = 0; i < 14; i++) {
      const followed = await createUser(a);
      const res = await call(a, 'POST', '/follows', { body: { user_id: user.id, followable_type: 'User', followable_id: followed.id } });
      expect(res.status).toBe(201);
      follows.push(res.body.id);
    }
    const list = `/follows?user_id=${user.id}&`;
    for (const as of [undefined, creds]) {
      const first = await pagesOf(a, list, as);
      expect(first.byNumber).toEqual(first.expected);
      // Asked again, the positions are known: the same answers.
      expect((await pagesOf(a, list, as)).byNumber).toEqual(first.expected);
    }

    // Another process removes a follow near the start: every later position moves by one.
    expect((await call(b, 'DELETE', `/follows/${follows[1]}`)).status).toBe(204);
    for (const as of [undefined, creds]) {
      const after = await pagesOf(a, list, as);
      expect(after.byNumber).toEqual(after.expected);
      expect(after.byNumber[1]![0]).toBe(follows[4]);
    }

    // And this server.
    expect((await call(a, 'DELETE', `/follows/${follows[0]}`)).status).toBe(204);
    for (const as of [undefined, creds]) {
      const after = await pagesOf(a, list, as);
      expect(after.byNumber).toEqual(after.expected);
      expect(after.byNumber[1]![0]).toBe(follows[5]);
    }
  });
});
