import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir, type Credentials } from '../helpers/server.js';

/**
 * A user's stream is one index walk per source (each page they are in, each event they go to, each user they
 * follow), merged in one statement with the total written once. A user in 1,000 pages: the walks are a union of
 * unions (SQLite refuses a compound SELECT of more than 500 terms), the total a sum no deeper than SQLite parses
 * (1,000 levels: a chain of the sources' kept counts was a 500), and the statement grows with the sources, not
 * with their square (the total, or the skip to a page number, repeated in every walk: megabytes of SQL, tens of
 * seconds on PostgreSQL, and past its 65,535 parameters a 500).
 */
const SOURCES = 1000;
const queries: string[] = [];
/** The parameters of each statement, by its text. */
const parameters = new Map<string, number>();
/** Users the reader follows too: their walks leave out the statuses of the reader's pages. */
const FOLLOWED = 20;
let t: TestApp;
let reader: { user: { id: string }; creds: Credentials };
const posted: string[] = [];

beforeAll(async () => {
  t = await startApp({
    storeOptions: {
      onQuery: (sql, values) => {
        queries.push(sql);
        parameters.set(sql, values.length);
      },
    },
  });
  reader = await t.member();
  const config = (await t.call('POST', '/page_configurations', { body: { name: 'Many' } })).body.id as string;
  const pages: string[] = [];
  // The creator of a page is in it from the start: each page is a source of their stream.
  for (let i = 0; i < SOURCES; i++) {
    const made = await t.call('POST', '/pages', { as: reader.creds, body: { name: `Source ${i}`, privacy: 'public', page_configuration_id: config, user_id: reader.user.id } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    pages.push(made.body.id);
  }
  for (let i = 0; i < FOLLOWED; i++) {
    const followed = await t.member();
    const follow = await t.call('POST', '/follows', { as: reader.creds, body: { user_id: reader.user.id, followable_type: 'User', followable_id: followed.user.id } });
    expect(follow.status, JSON.stringify(follow.body)).toBe(201);
  }
  // Statuses in the first page, one in the middle (the other group of the union) and the last.
  for (const page of [pages[0], pages[SOURCES / 2], pages[SOURCES - 1], pages[0]]) {
    const made = await t.call('POST', '/statuses', { as: reader.creds, body: { user_id: reader.user.id, page_id: page, content: `in ${page}` } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    posted.push(made.body.id);
  }
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (t) removeDir(t.dir);
});

describe(`the stream of a user with ${SOURCES} pages and ${FOLLOWED} followed users`, () => {
  it('answers its first page, a page number and a cursor, in order and with its total, in statements that grow with the sources', async () => {
    const newestFirst = [...posted].reverse();
    queries.length = 0;
    const first = await t.call('GET', `/users/${reader.user.id}/stream?per_page=2`, { as: reader.creds });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.items.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.total_items).toBe(posted.length);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!;
    const after = await t.call('GET', next.replace(/^.*\/public-api\/v1/, ''), { as: reader.creds });
    expect(after.body.items.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(2, 4));
    const third = await t.call('GET', `/users/${reader.user.id}/stream?per_page=1&page=3`, { as: reader.creds });
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    expect(third.body.items.map((s: { id: string }) => s.id)).toEqual([newestFirst[2]]);
    expect(third.body.total_items).toBe(posted.length);
    // A few kilobytes a source at most (the visibility rule in each walk): the square would be hundreds of times that.
    const longest = Math.max(...queries.map((q) => q.length));
    expect(longest).toBeLessThan(3000 * SOURCES);
    // And a few parameters a source, not one for each pair of a followed user and a page (SQLite takes 32,766 at
    // most, PostgreSQL 65,535: a reader in 190 pages who follows 190 users could not read their stream).
    const sources = SOURCES + FOLLOWED;
    expect(Math.max(...queries.map((q) => parameters.get(q) ?? 0))).toBeLessThan(8 * sources);
  });
});
