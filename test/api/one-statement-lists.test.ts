import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir, type Credentials } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-target.js';

/**
 * A list is one statement (one round trip on PostgreSQL): its rows, its total and the records its rows embed (a
 * follow's page or user, an invite's users and page, a status's author) are read together.
 */
const statements: string[] = [];
let t: TestApp;
let member: { user: { id: string }; creds: Credentials };
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startApp({ storeOptions: { onQuery: (sql) => void statements.push(sql) }, webhooks: { concurrency: 0 } });
  member = await t.member();
  const other = await t.member();
  const config = await t.call('POST', '/page_configurations', { body: { name: 'Club' } });
  const page = await t.call('POST', '/pages', {
    as: member.creds,
    body: { name: 'Garden', page_configuration_id: config.body.id, privacy: 'private', user_id: member.user.id },
  });
  ids.page = page.body.id;
  // (Its creator follows the page from its creation.)
  const posts = [
    ['POST', '/follows', member.creds, { user_id: member.user.id, followable_type: 'User', followable_id: other.user.id }],
    ['POST', '/page_access_requests', other.creds, { page_id: ids.page, user_id: other.user.id }],
    ['POST', '/invites', member.creds, { target_type: 'Page', target_id: ids.page, user_id: member.user.id, user_target_ids: [t.admin.id] }],
  ] as const;
  for (const [method, path, as, body] of posts) {
    const res = await t.call(method, path, { as, body });
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBeLessThan(300);
  }
  const event = await t.call('POST', '/events', {
    as: member.creds,
    body: { name: 'Fair', user_id: member.user.id, page_id: ids.page, start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T12:00:00Z' },
  });
  ids.event = event.body.id;
  await t.call('PUT', `/events/${ids.event}/attendance`, { as: member.creds, body: { user_id: member.user.id, answer: 'yes' } });
  const status = await t.call('POST', '/statuses', { as: member.creds, body: { user_id: member.user.id, page_id: ids.page, content: 'hello' } });
  ids.status = status.body.id;
  const report = await t.call('POST', '/reports', { as: member.creds, body: { user_id: member.user.id, target_type: 'User', target_id: other.user.id, reason: 'spam' } });
  expect(report.status, JSON.stringify(report.body)).toBe(201);
  await t.call('POST', '/comments', { as: member.creds, body: { user_id: member.user.id, status_id: ids.status, content: 'hi' } });
  await t.call('POST', '/likes', { as: member.creds, body: { user_id: member.user.id, status_id: ids.status } });
  await remembered();
});

/**
 * Until the callers are remembered (again after a write to users: PostgreSQL, once the access listener has told
 * of it), a request reads its caller first. A single read is one statement from then on.
 */
async function remembered() {
  for (const as of [member.creds, undefined])
    await vi.waitFor(
      async () => {
        statements.length = 0;
        expect((await t.call('GET', `/users/${member.user.id}`, { as })).status).toBe(200);
        expect(statements).toHaveLength(1);
      },
      { timeout: 5000, interval: 100 },
    );
}

/**
 * The answer to `url` once it came in `reads` statements. A caller may be read again now and then (PostgreSQL: a
 * heartbeat of the access listener late on a loaded machine, and nothing remembered is trusted until it answers):
 * asked again then, as a list that needs more statements needs them every time.
 */
async function answered(url: string, as: Credentials | undefined, reads: number) {
  return vi.waitFor(
    async () => {
      statements.length = 0;
      const res = await t.call('GET', url, { as });
      expect(res.status, url).toBe(200);
      expect(statements, url).toHaveLength(reads);
      return res;
    },
    { timeout: 5000, interval: 50 },
  );
}

afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

describe('a list that embeds records', () => {
  // [url, a field each item embeds, items (a Member's, an Admin's), statements]. A list under a record, or filtered
  // by a page, reads that record first (404 or 403 before any list): a page, an event, a status; a
  // stream reads its user and its sources (one statement).
  const lists = () =>
    [
      ['/follows', 'followable', 2, 1],
      [`/follows?followable_type=Page&followable_id=${ids.page}`, 'followable', 1, 1],
      ['/page_access_requests', 'user', 1, 1],
      ['/invites', 'user_target', 1, 1],
      [`/pages/${ids.page}/page_access_requests`, 'page', 1, 2],
      [`/page_access_requests?page_id=${ids.page}`, 'page', 1, 2],
      [`/statuses?page_id=${ids.page}`, 'user', 1, 1],
      ['/statuses', 'user', 1, 1],
      // (The Admin's holds the report on a user too.)
      ['/moderation_queue', 'user', [2, 3], 1],
      ['/reports', 'target.user', 1, 1],
      [`/pages/${ids.page}/invites`, 'target', 1, 2],
      [`/events/${ids.event}/attendees`, 'user', 1, 2],
      [`/statuses/${ids.status}/comments`, 'user', 1, 2],
      [`/statuses/${ids.status}/likes`, 'user', 1, 2],
      [`/users/${member.user.id}/stream`, 'user', 1, 3],
    ] as const;

  it('reads its rows, total and embedded records in one statement, for a Member and an Admin', async () => {
    for (const as of [member.creds, undefined])
      for (const [url, embedded, items, reads] of lists()) {
        const count = typeof items === 'number' ? items : items[as ? 0 : 1];
        const res = await answered(url, as, reads);
        expect(res.body.total_items, url).toBe(count);
        expect(res.body.items, url).toHaveLength(count);
        const embeds = (item: Record<string, unknown>) => embedded.split('.').reduce<any>((record, name) => record?.[name], item);
        for (const item of res.body.items) expect(embeds(item)?.id, `${url}: ${embedded}`).toMatch(/^[0-9a-f]{32}$/);
        // The list is the last statement, the records it embeds joined in it (no read of several ids after it).
        expect(statements.at(-1), url).toMatch(/ as "\w+__id"/);
      }
  });

  it('counts a status\'s comments less those the reader may not see, in the list\'s statement', async () => {
    const mallory = await t.member();
    await t.call('POST', '/follows', { as: mallory.creds, body: { user_id: mallory.user.id, followable_type: 'Page', followable_id: ids.page } });
    const invite = await t.call('POST', '/invites', {
      as: member.creds,
      body: { target_type: 'Page', target_id: ids.page, user_id: member.user.id, user_target_ids: [mallory.user.id] },
    });
    expect((await t.call('PUT', `/invites/${invite.body.success[0].id}/accept`, { as: member.creds })).status).toBe(200);
    const comment = await t.call('POST', '/comments', { as: mallory.creds, body: { user_id: mallory.user.id, status_id: ids.status, content: 'buy pills' } });
    expect(comment.status).toBe(201);
    expect((await t.call('PUT', `/users/${mallory.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
    await remembered();
    try {
      for (const [as, seen] of [[member.creds, 1], [undefined, 2]] as const) {
        const read = await t.call('GET', `/statuses/${ids.status}`, { as });
        expect(read.body.comments_count).toBe(seen);
        // (The stream reads its user and its sources first.)
        for (const [url, reads] of [[`/statuses?page_id=${ids.page}`, 1], [`/users/${member.user.id}/stream`, 3]] as const) {
          const listed = await answered(url, as, reads);
          expect(listed.body.items.map((s: { comments_count: number }) => s.comments_count), url).toEqual([seen]);
        }
      }
    } finally {
      expect((await t.call('DELETE', `/users/${mallory.user.id}/suspension`)).status).toBe(200);
    }
  });

  it('embeds the same record as a single read answers', async () => {
    const follows = await t.call('GET', '/follows', { as: member.creds });
    for (const follow of follows.body.items) {
      const path = follow.followable_type === 'Page' ? `/pages/${follow.followable_id}` : `/users/${follow.followable_id}`;
      expect(follow.followable).toEqual((await t.call('GET', path, { as: member.creds })).body);
    }
    const [invite] = (await t.call('GET', '/invites')).body.items;
    expect(invite.user_target).toEqual((await t.call('GET', `/users/${t.admin.id}`)).body);
    expect(invite.target).toEqual((await t.call('GET', `/pages/${ids.page}`)).body);
  });
});

describe('a write by its caller', () => {
  it('reads no user: the caller is the author, and the record embeds them as authenticated', async () => {
    const reads = (log: string[]) => log.filter((sql) => /(from|join) "users"/.test(sql));
    await remembered();
    statements.length = 0;
    const status = await t.call('POST', '/statuses', { as: member.creds, body: { user_id: member.user.id, page_id: ids.page, content: 'again' } });
    expect(status.status, JSON.stringify(status.body)).toBe(201);
    const comment = await t.call('POST', '/comments', { as: member.creds, body: { user_id: member.user.id, status_id: status.body.id, content: 'yes' } });
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);
    const like = await t.call('POST', '/likes', { as: member.creds, body: { user_id: member.user.id, comment_id: comment.body.id } });
    expect(like.status, JSON.stringify(like.body)).toBe(201);
    await t.app.fanOut.drain();
    expect(reads(statements), statements.join('\n')).toEqual([]);
    const author = (await t.call('GET', `/users/${member.user.id}`, { as: member.creds })).body;
    for (const record of [status.body, comment.body, like.body]) expect(record.user).toEqual(author);
  });

  it('reads each user and page once: a request to join, its acceptance, an answer to an event', async () => {
    const asker = await t.member();
    const page = await t.call('POST', '/pages', {
      as: member.creds,
      body: { name: 'Orchard', page_configuration_id: (await t.call('GET', '/page_configurations')).body.items[0].id, privacy: 'private', user_id: member.user.id },
    });
    await t.call('GET', '/pages?per_page=1', { as: asker.creds });
    // (The Admins that a write notifies are read by id alone, `select "users"."id" … "system_key"`, not as records.)
    const userReads = () => statements.filter((sql) => /from "users"|join "users"/.test(sql) && !/^select "users"\."id" from "users" inner join "permission_sets"/.test(sql));
    const pageReads = () => statements.filter((sql) => /from "pages"/.test(sql) && !/^insert|^update|^delete/.test(sql));
    statements.length = 0;
    const request = await t.call('POST', '/page_access_requests', { as: asker.creds, body: { page_id: page.body.id, user_id: asker.user.id } });
    expect(request.status, JSON.stringify(request.body)).toBe(201);
    expect(userReads(), statements.join('\n')).toEqual([]);
    expect(pageReads(), statements.join('\n')).toHaveLength(1);
    statements.length = 0;
    const accepted = await t.call('PUT', `/page_access_requests/${request.body.id}/accept`, { as: member.creds });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(userReads(), statements.join('\n')).toHaveLength(1);
    expect(statements.filter((sql) => /from "suspensions" where/.test(sql))).toEqual([]);
    expect(accepted.body.user).toEqual((await t.call('GET', `/users/${asker.user.id}`, { as: member.creds })).body);
    statements.length = 0;
    const answer = await t.call('PUT', `/events/${ids.event}/attendance`, { as: member.creds, body: { user_id: member.user.id, answer: 'maybe' } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(userReads(), statements.join('\n')).toEqual([]);
    expect(answer.body.user).toEqual((await t.call('GET', `/users/${member.user.id}`, { as: member.creds })).body);
  });

  it('invites several users reading each of them once, and the page once', async () => {
    const [one, two] = [await t.member(), await t.member()];
    await t.call('GET', '/pages?per_page=1', { as: member.creds });
    statements.length = 0;
    const res = await t.call('POST', '/invites', {
      as: member.creds,
      body: { target_type: 'Page', target_id: ids.page, user_id: member.user.id, user_target_ids: [one.user.id, two.user.id] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toHaveLength(2);
    // (The invited are read each in their transaction, by id; the page by the visibility rule.)
    expect(statements.filter((sql) => /(from|join) "users"/.test(sql)), statements.join('\n')).toHaveLength(2);
    expect(statements.filter((sql) => /from "pages"/.test(sql) && !/^insert/.test(sql)), statements.join('\n')).toHaveLength(1);
    for (const [invite, who] of [[res.body.success[0], one], [res.body.success[1], two]] as const) {
      expect(invite.user_target).toEqual((await t.call('GET', `/users/${who.user.id}`, { as: member.creds })).body);
      expect(invite.user).toEqual((await t.call('GET', `/users/${member.user.id}`, { as: member.creds })).body);
      expect(invite.target).toEqual((await t.call('GET', `/pages/${ids.page}`, { as: member.creds })).body);
    }
  });
});

describe('a server just started', () => {
  it('answers its second request in the request\'s own statement: the key and the caller are remembered from the first', async () => {
    const log: string[] = [];
    const fresh = await startApp({ storeOptions: { onQuery: (sql) => void log.push(sql) }, webhooks: { concurrency: 0 } });
    try {
      // PostgreSQL: long enough for the access listener, opened as the server starts, to listen. Opened by the first
      // request instead, it would not be listening at the second, which would read its key and caller again.
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (onPostgres) expect(fresh.store.versionOf(['users'])).toBeDefined();
      expect((await fresh.call('GET', `/users/${fresh.admin.id}`)).status).toBe(200);
      log.length = 0;
      expect((await fresh.call('GET', `/users/${fresh.admin.id}`)).status).toBe(200);
      expect(log).toHaveLength(1);
    } finally {
      await fresh.close();
      removeDir(fresh.dir);
    }
  });

  it('reads a caller it does not remember in one statement: the user, their role and their suspension', async () => {
    const log: string[] = [];
    const fresh = await startApp({ storeOptions: { onQuery: (sql) => void log.push(sql) }, webhooks: { concurrency: 0 } });
    try {
      // (The pages list reads no user: the only statements naming users or suspensions are the caller's.)
      log.length = 0;
      expect((await fresh.call('GET', '/pages?per_page=1')).status).toBe(200);
      const callerReads = log.filter((sql) => /"users"|"suspensions"/.test(sql));
      expect(callerReads, log.join('\n')).toHaveLength(1);
      expect(callerReads[0]).toMatch(/join "permission_sets" .* left join "suspensions"/);
    } finally {
      await fresh.close();
      removeDir(fresh.dir);
    }
  });
});
