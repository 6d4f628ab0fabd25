import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir, type Credentials } from '../helpers/server.js';

/**
 * A user's stream is one index walk per source (each page they are in, each event they go to, each user they
 * follow), merged: but only of the sources whose newest statuses are newest, a page's rows or fewer. A Member who
 * made thousands of pages had a statement of a walk per page (megabytes of SQL: seconds to plan and merge on either
 * engine while SQLite held the server, and past 32,766 parameters a 500), its total a lookup per pair of a page and
 * a followed user. Now the statements do not grow with the sources, and say the same.
 */
const SOURCES = 3000;
const queries: string[] = [];
/** The parameters of each statement, by its text. */
const parameters = new Map<string, number>();
/** Users the reader follows too: their walks leave out the statuses of the reader's pages. */
const FOLLOWED = 20;
let t: TestApp;
let reader: { user: { id: string }; creds: Credentials };
/** The stream's statuses, oldest first: more than a page of 100, so that a page number takes several steps. */
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
  const followed: { user: { id: string }; creds: Credentials }[] = [];
  for (let i = 0; i < FOLLOWED; i++) {
    followed.push(await t.member());
    await t.ok('POST', '/follows', reader, { user_id: reader.user.id, followable_type: 'User', followable_id: followed[i]!.user.id });
  }
  // Statuses in pages all over the list (the first and last twice), and of followed users, to their followers
  // (in the stream) and in one of the reader's pages (in it once, by the page).
  const post = async (who: { user: { id: string }; creds: Credentials }, page_id?: string) =>
    posted.push((await t.ok('POST', '/statuses', who, { user_id: who.user.id, content: 'hello', ...(page_id ? { page_id } : {}) })).id);
  for (let i = 0; i < 110; i++) await post(reader, pages[(i * 27) % SOURCES]);
  await t.ok('POST', '/follows', followed[0], { user_id: followed[0]!.user.id, followable_type: 'Page', followable_id: pages[1] });
  for (const who of followed.slice(0, 5)) await post(who);
  await post(followed[0]!, pages[1]);
  for (const page of [pages[0], pages[SOURCES - 1], pages[SOURCES - 1], pages[0]]) await post(reader, page);
}, 300_000);
afterAll(async () => {
  await t?.close();
  if (t) removeDir(t.dir);
});

describe(`the stream of a user with ${SOURCES} pages and ${FOLLOWED} followed users`, () => {
  const newestFirst = () => [...posted].reverse();
  const ids = (body: { items: { id: string }[] }) => body.items.map((s) => s.id);
  const read = async (query: string) => {
    const res = await t.call('GET', `/users/${reader.user.id}/stream?${query}`, { as: reader.creds });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  };

  it('answers its first page and its cursors, in order and with its total, in statements that do not grow with the sources', async () => {
    queries.length = 0;
    const walked: string[] = [];
    let res = await read('per_page=7');
    for (;;) {
      expect(res.body.total_items).toBe(posted.length);
      walked.push(...ids(res.body));
      const next = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
      if (!next) break;
      res = await t.call('GET', next.replace(/^.*\/public-api\/v1/, ''), { as: reader.creds });
    }
    expect(walked).toEqual(newestFirst());
    // A page's walks only: before, a walk per source (3,000 sources: 1 MB of SQL and 21,000 parameters a statement).
    expect(Math.max(...queries.map((q) => q.length))).toBeLessThan(20_000);
    expect(Math.max(...queries.map((q) => parameters.get(q) ?? 0))).toBeLessThan(200);
  });

  // A page number whose skipped rows a page's worth of walks holds is one statement; deeper, steps of 100 keys.
  it('answers a page number, deep ones by several steps, as the cursors do', async () => {
    for (const [perPage, page] of [[1, 3], [10, 5], [50, 3], [1, 109], [100, 2], [40, 4]] as const) {
      const res = await read(`per_page=${perPage}&page=${page}`);
      expect(ids(res.body), `per_page=${perPage}&page=${page}`).toEqual(newestFirst().slice((page - 1) * perPage, page * perPage));
      expect(res.body.total_items).toBe(posted.length);
    }
    // Past the end: no rows, and the total.
    const past = await read('per_page=100&page=3');
    expect(past.body).toMatchObject({ items: [], total_items: posted.length });
    // Deeper than 1,000 statuses, a page number would cost a step of every source per 100: the cursors go there.
    const deep = await t.call('GET', `/users/${reader.user.id}/stream?per_page=100&page=12`, { as: reader.creds });
    expect(deep.status, JSON.stringify(deep.body)).toBe(400);
    expect(deep.body.error).toMatchObject({
      code: 'invalid_query',
      message:
        "page: a stream of more than 100 sources is paged by number through its first 1000 statuses; follow the Link header's cursor beyond",
    });
    expect((await read('per_page=100&page=11')).body).toMatchObject({ items: [], total_items: posted.length });
  });
});
