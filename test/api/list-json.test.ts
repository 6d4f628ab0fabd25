import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller, Deps } from '../../src/domain/context.js';
import { listAccessRequests } from '../../src/domain/access-requests.js';
import { listEvents } from '../../src/domain/events.js';
import { listFollows } from '../../src/domain/follows.js';
import { listInvites } from '../../src/domain/invites.js';
import { listPages } from '../../src/domain/pages.js';
import { listUsers } from '../../src/domain/users.js';
import { parsePermissions } from '../../src/domain/permissions.js';
import { ListEventsQuery } from '../../src/shared/schemas/events.js';
import { ListFollowsQuery } from '../../src/shared/schemas/follows.js';
import { ListAccessRequestsQuery, ListInvitesQuery } from '../../src/shared/schemas/membership.js';
import { ListPagesQuery } from '../../src/shared/schemas/pages.js';
import { ListUsersQuery } from '../../src/shared/schemas/users.js';
import { encodeCursor, NEXT_PAGE } from '../../src/shared/schemas/common.js';
import Database from 'better-sqlite3';
import { startApp, type TestApp } from '../helpers/app.js';
import { onPostgres, openRaw } from '../helpers/store-target.js';
import { removeDir } from '../helpers/server.js';

/**
 * The pages list's records come as JSON text written by SQLite (`json_object`, kept by id and spliced in) where
 * the page is read straight from the store's reading connection: they must be the same bytes `JSON.stringify`
 * gives for the record a single read answers, whatever the text holds.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
  removeDir(t.dir);
});

const raw = async (url: string) => {
  const key = t.admin;
  const res = await t.app.inject({ method: 'GET', url: `/public-api/v1${url}`, headers: { 'api-key': key.key, 'api-secret': key.secret } });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};

describe('a list written from JSON text', () => {
  it('is byte for byte what the records themselves serialise to, quotes, escapes and all', async () => {
    const config = await t.call('POST', '/page_configurations', { body: { name: 'Texts' } });
    const texts = [
      ['Zoë "Q" \\ back/slash 😀', 'line1\nline2\t"quoted" \\ é 中文 \u2028 \u2029 \u007f end'],
      ["it's <b>&amp;</b>", null],
      ['\u00e9\u0301 combining', '\r\n\f\b'],
    ] as const;
    const ids: string[] = [];
    for (const [name, description] of texts) {
      const page = await t.call('POST', '/pages', {
        body: { name, description, privacy: 'public', page_configuration_id: config.body.id, user_id: t.admin.id },
      });
      expect(page.status, JSON.stringify(page.body)).toBe(201);
      ids.push(page.body.id);
    }
    const singles = await Promise.all(ids.map((id) => raw(`/pages/${id}`)));
    // Three times: a list's fetch is compiled from its second use on, then read as JSON text.
    for (let round = 0; round < 3; round++) {
      const list = await raw(`/pages?page_configuration_id=${config.body.id}&per_page=2`);
      const next = await raw(`/pages?page_configuration_id=${config.body.id}&per_page=2&page=2`);
      expect(list).toBe(`{"items":[${singles[0]},${singles[1]}],"total_items":3}`);
      expect(next).toBe(`{"items":[${singles[2]}],"total_items":3}`);
    }
  });
});

/**
 * The lists whose records embed others (access requests, invites, follows) and the events list are written as
 * JSON text by SQLite too (`src/store/records-json.ts`): each answer must be the bytes the domain's own
 * mapping gives for the same rows. That mapping answers inside a transaction (a transaction's reads never
 * take the JSON path), so each list is asked both ways, as an Admin and as Members (whose own email alone
 * shows in embedded users).
 */
// Twice on SQLite: with the embedded users and pages kept as usual, and with one of each kind kept (every page
// of a list refers to more than that: the records spliced are those read for it, not only those kept).
for (const kept of onPostgres ? [undefined] : [undefined, 1])
describe(`lists with embedded records written from JSON text${kept ? ' (one embedded record of each kind kept)' : ''}`, () => {
  let j: TestApp;
  const queries: string[] = [];
  beforeAll(async () => {
    j = await startApp({ storeOptions: { onQuery: (sql) => queries.push(sql), ...(kept ? { embeddedKept: kept } : {}) } });
  });
  afterAll(async () => {
    await j.close();
    removeDir(j.dir);
  });

  const callerOf = async (userId: string): Promise<Caller> => {
    const user = (await j.store.users.getWithPermissions(userId))!;
    return { user, permissions: parsePermissions(user.role_permissions), isAdmin: user.role_system_key === 'admins' };
  };

  it('are byte for byte what the domain maps from the rows, to an Admin and to each Member', async () => {
    const a = await j.member({ first_name: 'Zoë "Q"', last_name: 'back\\slash 😀 \u2028' });
    const b = await j.member({ first_name: "it's", last_name: '<b>&amp;</b>' });
    const c = await j.member();
    // A role shown as a tagline (an object in the embedded user), given to b.
    const role = await j.call('POST', '/permission_sets', { body: {
        name: 'Hosts "of" \\ gatherings',
        show_as_tagline: true,
        image_url: 'https://example.org/h.png',
        permissions: { users: { can_use_api: true, index: true, show: true } },
      },
    });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    expect((await j.call('PUT', `/users/${b.user.id}/role`, { body: { permission_set_id: role.body.id } })).status).toBe(200);
    const config = await j.call('POST', '/page_configurations', { body: { name: 'Embedded' } });
    const page = async (as: typeof a, name: string, privacy: string, description: string | null) => {
      const res = await j.call('POST', '/pages', {
        as: as.creds,
        body: { name, description, privacy, page_configuration_id: config.body.id, user_id: as.user.id },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const pa = await page(a, 'A\'s "page" \\ é', 'public', 'line1\nline2\t\r\f\b');
    const pb = await page(b, 'B page', 'private', null);
    const pc = await page(c, 'C page', 'public', 'plain');
    for (const [who, target] of [[b, pa], [c, pa], [a, pb], [c, pb], [a, pc]] as const) {
      const res = await j.call('POST', '/page_access_requests', { as: who.creds, body: { page_id: target, user_id: who.user.id } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    for (const [who, target, invitees] of [[a, pa, [b, c]], [b, pb, [c]], [c, pc, [b]]] as const) {
      const res = await j.call('POST', '/invites', {
        as: who.creds,
        body: { target_type: 'Page', target_id: target, user_id: who.user.id, user_target_ids: invitees.map((x) => x.user.id) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    // One accepted, one refused (by the Admin, who administers every page): true, false and null in the flags.
    const invites = await j.call('GET', '/invites?per_page=100');
    const [first, second] = invites.body.items as { id: string }[];
    expect((await j.call('PUT', `/invites/${first!.id}/accept`)).status).toBe(200);
    expect((await j.call('PUT', `/invites/${second!.id}/refuse`)).status).toBe(200);

    // Follows of users (the followable a user record) besides those of pages; a secret page's follows and
    // events, seen by its members alone.
    for (const [who, whom] of [[a, b], [b, a], [c, b]] as const) {
      const res = await j.call('POST', '/follows', { as: who.creds, body: { user_id: who.user.id, followable_type: 'User', followable_id: whom.user.id } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const secret = await page(c, 'C secret', 'secret', 'hidden');
    // Events: with and without a page, a limit of places (one taken), tickets with quotes and escapes.
    const event = async (as: typeof a, body: Record<string, unknown>) => {
      const res = await j.call('POST', '/events', {
        as: as.creds,
        body: { user_id: as.user.id, start_date: '2026-12-01T10:00:00.000Z', end_date: '2026-12-01T12:00:00.000Z', ...body },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const limited = await event(a, {
      name: 'Limited "gathering"',
      page_id: pa,
      places_limit: 2,
      tickets: [{ name: 'Entrée \\ "VIP" \u0001 😀', price: '12.50', currency: 'eur' }, { name: 'Free', price: '0', currency: 'EUR' }],
    });
    await event(b, { name: 'Open', description: 'line\nbreak', start_date: '2026-11-25T10:00:00.000Z' });
    await event(c, { name: 'Secret one', page_id: secret, places_limit: 1 });
    expect((await j.call('PUT', `/events/${limited}/attendance`, { as: b.creds, body: { user_id: b.user.id, answer: 'yes' } })).status).toBe(200);

    const lists: [string, (deps: Deps, caller: Caller, query: never) => Promise<unknown>, { parse(q: unknown): unknown }, string[]][] = [
      ['/page_access_requests', listAccessRequests as never, ListAccessRequestsQuery, ['state=waiting']],
      ['/invites', listInvites as never, ListInvitesQuery, ['state=waiting']],
      ['/follows', listFollows as never, ListFollowsQuery, ['followable_type=User', 'followable_type=Page']],
      ['/events', listEvents as never, ListEventsQuery, ['event_date=current_and_coming', `page_id=${pa}`]],
      ['/pages', listPages as never, ListPagesQuery, ['privacy=secret', 'privacy=private', `page_configuration_id=${config.body.id}`]],
      ['/users', listUsers as never, ListUsersQuery, [`role=${role.body.id}`, `nickname=${(b.user as unknown as { nickname: string }).nickname}`]],
    ];
    const viewers = [{ id: j.admin.id, creds: undefined }, ...[a, b, c].map((x) => ({ id: x.user.id, creds: x.creds }))];
    for (const [path, list, schema, filters] of lists)
      for (const viewer of viewers)
        for (const search of ['per_page=100', 'per_page=2', 'per_page=2&page=2', 'per_page=1&page=3', ...filters]) {
          const caller = await callerOf(viewer.id);
          const query = schema.parse(Object.fromEntries(new URLSearchParams(search)));
          const answer = await j.store.transaction((tx) => list({ ...j.deps, store: tx }, caller, query as never));
          const mapped = JSON.stringify(answer);
          // Where the next page starts: the same cursor in the Link header.
          const next = (answer as { [NEXT_PAGE]?: string[] })[NEXT_PAGE];
          // Three times: a list's fetch is compiled from its second use on.
          for (let round = 0; round < 3; round++) {
            queries.length = 0;
            const res = await j.app.inject({
              method: 'GET',
              url: `/public-api/v1${path}?${search}`,
              headers: viewer.creds ? { 'api-key': viewer.creds.key, 'api-secret': viewer.creds.secret } : { 'api-key': j.admin.key, 'api-secret': j.admin.secret },
            });
            expect(res.statusCode, res.body).toBe(200);
            expect(res.body, `${path}?${search} as ${viewer.id}`).toBe(mapped);
            const link = res.headers.link as string | undefined;
            expect(link && new URL(/<([^>]+)>/.exec(link)![1]!, 'http://x').searchParams.get('cursor')).toBe(next && encodeCursor(next));
            // (SQLite's reading connection writes the JSON; PostgreSQL answers rows, mapped as inside the transaction.)
            if (!j.file.startsWith('postgres') && JSON.parse(res.body).items.length) {
              // Every record is one reference, its text kept by id (written by SQLite in parts when first read,
              // the users and pages it embeds spliced in).
              const reference = { '/pages': 'P', '/users': 'U', '/follows': 'F', '/page_access_requests': 'R', '/invites': 'I', '/events': 'E' }[path];
              expect(reference, path).toBeDefined();
              expect(queries.some((q) => q.includes(`'${reference}' ||`))).toBe(true);
            }
          }
        }
  });
});

describe('a page of several walks written as JSON', () => {
  it.skipIf(onPostgres)(
    'is one snapshot: a commit by another connection between its two reads neither repeats a row nor loses one [SQLite]',
    async () => {
      // A Member's waiting requests are two walks: their own, and those to the page they created. Their list's
      // page reads its keys, then its records; another connection accepts the page's second request in between.
      let strike: (() => void) | undefined;
      const k = await startApp({
        storeOptions: {
          onQuery: (sql) => {
            // The page's records (a reference each), read after its keys.
            if (strike && sql.includes(`'R' || "r"."id"`)) {
              const run = strike;
              strike = undefined;
              run();
            }
          },
        },
      });
      try {
        const m = await k.member();
        const others = await Promise.all([1, 2, 3].map(() => k.member()));
        const config = await k.call('POST', '/page_configurations', { body: { name: 'Snap' } });
        const pageOf = async (as: typeof m) =>
          (
            await k.call('POST', '/pages', {
              as: as.creds,
              body: { name: `Page ${as.user.nickname}`, privacy: 'public', page_configuration_id: config.body.id, user_id: as.user.id },
            })
          ).body.id as string;
        const mine = await pageOf(m);
        // Interleaved in time (ids follow creation): requests to m's page, and m's own to the others' pages.
        for (const other of others) {
          expect((await k.call('POST', '/page_access_requests', { as: other.creds, body: { page_id: mine, user_id: other.user.id } })).status).toBe(201);
          const theirs = await pageOf(other);
          expect((await k.call('POST', '/page_access_requests', { as: m.creds, body: { page_id: theirs, user_id: m.user.id } })).status).toBe(201);
        }
        const ask = async (url: string) => {
          const res = await k.app.inject({ method: 'GET', url: `/public-api/v1${url}`, headers: { 'api-key': m.creds.key, 'api-secret': m.creds.secret } });
          expect(res.statusCode, res.body).toBe(200);
          return { ids: (JSON.parse(res.body).items as { id: string }[]).map((r) => r.id), link: res.headers.link as string | undefined };
        };
        const all = (await ask('/page_access_requests?state=waiting&per_page=100')).ids;
        expect(all).toHaveLength(6);
        // Twice first (a list's fetch is compiled from its second use on), then with the other connection's commit.
        await ask('/page_access_requests?state=waiting&per_page=3');
        const raw = new Database(k.file);
        strike = () => raw.prepare("update page_access_requests set state = 'accepted', is_validate = 1 where id = ?").run(all[1]);
        const first = await ask('/page_access_requests?state=waiting&per_page=3');
        raw.close();
        expect(strike).toBeUndefined();
        // The page as it was when it was read, and its cursor after its last row.
        expect(first.ids).toEqual(all.slice(0, 3));
        const next = /<\/public-api\/v1([^>]+)>/.exec(first.link!)![1]!;
        const second = await ask(next);
        expect(second.ids).toEqual(all.slice(3));
      } finally {
        await k.close();
        removeDir(k.dir);
      }
    },
  );
});

describe('the users and pages spliced into the records that embed them', () => {
  it('are those of the moment the list is read: a role, a role tagline, another process writing a name or deleting a page', async () => {
    let strike: (() => void) | undefined;
    const k = await startApp({
      storeOptions: {
        onQuery: (sql) => {
          // Another connection's commit as the embedded pages are read, after the rows that refer to them.
          if (strike && sql.includes('embedded_page') && !sql.includes('json_object(\'id\', "i"')) {
            const run = strike;
            strike = undefined;
            run();
          }
        },
      },
    });
    try {
      const a = await k.member();
      const b = await k.member();
      const config = await k.call('POST', '/page_configurations', { body: { name: 'Kept' } });
      const pageOf = async (name: string) => {
        const res = await k.call('POST', '/pages', {
          as: a.creds,
          body: { name, privacy: 'public', page_configuration_id: config.body.id, user_id: a.user.id },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as string;
      };
      const pa = await pageOf('First name of the page');
      const spare = await pageOf('Spare');
      expect((await k.call('POST', '/page_access_requests', { as: b.creds, body: { page_id: pa, user_id: b.user.id } })).status).toBe(201);
      expect(
        (await k.call('POST', '/invites', { as: a.creds, body: { target_type: 'Page', target_id: pa, user_id: a.user.id, user_target_ids: [b.user.id] } }))
          .status,
      ).toBe(200);
      for (const [type, id] of [['User', a.user.id], ['Page', pa]] as const)
        expect((await k.call('POST', '/follows', { as: b.creds, body: { user_id: b.user.id, followable_type: type, followable_id: id } })).status).toBe(201);

      const firstName = (who: typeof a) => (who.user as unknown as { first_name: string }).first_name;
      expect(firstName(a)).toEqual(expect.any(String));
      type Item = Record<string, Record<string, unknown> | null>;
      const ask = async (path: string, as?: typeof a) => {
        const res = await k.app.inject({
          method: 'GET',
          url: `/public-api/v1${path}`,
          headers: as ? { 'api-key': as.creds.key, 'api-secret': as.creds.secret } : { 'api-key': k.admin.key, 'api-secret': k.admin.secret },
        });
        expect(res.statusCode, res.body).toBe(200);
        return JSON.parse(res.body).items as Item[];
      };
      /** What each list embeds, asked by the Admin and by b, three times (kept from the second on). */
      const embedded = async () => {
        const seen: unknown[] = [];
        for (const as of [undefined, b])
          for (let round = 0; round < 3; round++) {
            // The users and pages lists first: no other list has looked at the versions yet this round.
            const users = await ask('/users?per_page=100', as);
            const pages = await ask('/pages?per_page=100', as);
            const [request] = await ask('/page_access_requests', as);
            const [invite] = await ask('/invites', as);
            const follows = await ask('/follows?per_page=10', as);
            const state = {
              listedPage: pages.find((p) => (p.id as unknown) === pa)?.name,
              listedUser: users.find((u) => (u.id as unknown) === a.user.id)?.first_name,
              listedB: users.filter((u) => (u.id as unknown) === b.user.id).map((u) => [u.tagline, u.email !== undefined]),
              requestPage: request?.page?.name,
              requester: request && [request.user!.first_name, request.user!.permission_set_id, request.user!.tagline],
              invitePage: invite?.target?.name,
              inviter: invite?.user?.first_name,
              invitee: invite && [invite.user_target!.first_name, invite.user_target!.tagline],
              followed: follows.filter((f) => (f.user_id as unknown) === b.user.id).map((f) => f.followable?.first_name ?? f.followable?.name),
            };
            if (round > 0) expect(state).toEqual(seen.at(-1));
            seen.push(state);
          }
        expect(seen[3]).toEqual(seen[0]);
        return seen[0] as Record<string, unknown>;
      };
      const before = await embedded();
      expect(before).toMatchObject({ listedUser: firstName(a), listedPage: 'First name of the page', requestPage: 'First name of the page', invitePage: 'First name of the page', followed: [firstName(a), 'First name of the page'] });

      // b's role: a role shown as a tagline (the users' version moves), then that role renamed (the roles').
      const role = await k.call('POST', '/permission_sets', {
        body: { name: 'Guide', show_as_tagline: true, image_url: null, permissions: { users: { can_use_api: true, index: true, show: true } } },
      });
      expect(role.status, JSON.stringify(role.body)).toBe(201);
      expect((await k.call('PUT', `/users/${b.user.id}/role`, { body: { permission_set_id: role.body.id } })).status).toBe(200);
      expect(await embedded()).toMatchObject({ requester: [firstName(b), role.body.id, { name: 'Guide', image_url: null }], listedB: [[{ name: 'Guide', image_url: null }, true]] });
      expect((await k.call('PUT', `/permission_sets/${role.body.id}`, { body: { name: 'Senior guide' } })).status).toBe(200);
      expect(await embedded()).toMatchObject({ invitee: [firstName(b), { name: 'Senior guide', image_url: null }], listedB: [[{ name: 'Senior guide', image_url: null }, true]] });

      // Another process writes: a user's name, a page's name.
      const other = await openRaw(k.file);
      await other.all('update users set first_name = ? where id = ?', ['Renamed elsewhere', a.user.id]);
      expect(await embedded()).toMatchObject({ listedUser: 'Renamed elsewhere', inviter: 'Renamed elsewhere', followed: ['Renamed elsewhere', 'First name of the page'] });
      await other.all('update pages set name = ? where id = ?', ['Second name', pa]);
      expect(await embedded()).toMatchObject({ listedPage: 'Second name', requestPage: 'Second name', invitePage: 'Second name', followed: ['Renamed elsewhere', 'Second name'] });
      await other.close();

      if (!onPostgres) {
        // A page created: the pages kept are forgotten, so the next list reads its embedded pages again, after
        // its rows. Another process renames the page just then: the pages read are not of the rows' moment, and
        // the list is read again in a snapshot; as that one reads its pages, another process deletes the page (and
        // so its request): the page embedded is still the one the rows refer to, of the snapshot's moment, never
        // null, never the name before.
        expect((await k.call('POST', '/pages', { as: a.creds, body: { name: 'Third', privacy: 'public', page_configuration_id: config.body.id, user_id: a.user.id } })).status).toBe(201);
        const raw = new Database(k.file);
        raw.pragma('foreign_keys = on');
        strike = () => {
          raw.prepare('update pages set name = ? where id = ?').run('Third name', pa);
          strike = () => raw.prepare('delete from pages where id = ?').run(pa);
        };
        const [request] = await ask('/page_access_requests');
        expect(strike).toBeUndefined();
        expect(request?.page).toMatchObject({ id: pa, name: 'Third name' });
        expect(await ask('/page_access_requests')).toEqual([]);
        // A follow has no foreign key: b's follow of the page deleted stays, with nothing to embed.
        const follows = await ask('/follows?followable_type=Page&per_page=100');
        expect(follows.filter((f) => (f.followable_id as unknown) === pa && (f.user_id as unknown) === b.user.id).map((f) => f.followable)).toEqual([null]);
        raw.close();
      }
      expect(spare).toBeTruthy();
    } finally {
      await k.close();
      removeDir(k.dir);
    }
  });
});

describe('the records a list keeps by id (follows, access requests, invites)', () => {
  it.skipIf(onPostgres)(
    'are retired by an update or a delete, whoever writes it, and not by an insert: a new follow reads only itself [SQLite]',
    async () => {
      const reads: [string, readonly unknown[]][] = [];
      const k = await startApp({ storeOptions: { onQuery: (sql, parameters) => reads.push([sql, parameters ?? []]) } });
      try {
        const a = await k.member();
        const b = await k.member();
        const c = await k.member();
        const config = await k.call('POST', '/page_configurations', { body: { name: 'Kept records' } });
        const pageOf = async (name: string) => {
          const res = await k.call('POST', '/pages', { as: a.creds, body: { name, privacy: 'public', page_configuration_id: config.body.id, user_id: a.user.id } });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return res.body.id as string;
        };
        const p1 = await pageOf('First');
        const p2 = await pageOf('Second');
        const request = await k.call('POST', '/page_access_requests', { as: b.creds, body: { page_id: p1, user_id: b.user.id } });
        expect(request.status, JSON.stringify(request.body)).toBe(201);
        expect((await k.call('POST', '/invites', { as: a.creds, body: { target_type: 'Page', target_id: p1, user_id: a.user.id, user_target_ids: [b.user.id] } })).status).toBe(200);
        const follow = await k.call('POST', '/follows', { as: b.creds, body: { user_id: b.user.id, followable_type: 'Page', followable_id: p1 } });
        expect(follow.status, JSON.stringify(follow.body)).toBe(201);
        expect((await k.call('POST', '/follows', { as: b.creds, body: { user_id: b.user.id, followable_type: 'User', followable_id: a.user.id } })).status).toBe(201);

        type Item = Record<string, unknown> & { followable?: { name?: string } | null };
        const ask = async (path: string) => {
          const res = await k.app.inject({ method: 'GET', url: `/public-api/v1${path}`, headers: { 'api-key': k.admin.key, 'api-secret': k.admin.secret } });
          expect(res.statusCode, res.body).toBe(200);
          return JSON.parse(res.body).items as Item[];
        };
        const state = async () => {
          const follows = await ask('/follows?per_page=100');
          const [req] = await ask('/page_access_requests');
          const [invite] = await ask('/invites');
          const f = follows.find((x) => x.id === follow.body.id);
          return { follows: follows.length, followed: [f?.followable_id, f?.followable?.name], request: req?.state, invite: [invite?.state, invite?.is_accepted] };
        };
        // Three times: compiled from the second use on, then kept. Four follows: b's two, and a's of the two
        // pages a created.
        for (let round = 0; round < 3; round++)
          expect(await state()).toEqual({ follows: 4, followed: [p1, 'First'], request: 'waiting', invite: ['waiting', false] });
        /** The records of `kind` read by id since `from`: the ids asked. */
        const readById = (kind: string, from: number) =>
          reads.slice(from).filter(([sql]) => sql.startsWith(`select '${kind}' ||`) && sql.includes('json_each')).flatMap(([, p]) => JSON.parse(String(p[0])) as string[]);
        let from = reads.length;
        await state();
        expect([readById('F', from), readById('R', from), readById('I', from)]).toEqual([[], [], []]);

        // Another process: the request and the invite answered, the follow deleted and written again with its id.
        const raw = new Database(k.file);
        raw.prepare("update page_access_requests set state = 'accepted', is_validate = 1 where id = ?").run(request.body.id);
        raw.prepare("update invites set state = 'accepted', is_accepted = 1, is_validate = 1").run();
        raw.prepare('delete from follows where id = ?').run(follow.body.id);
        raw.prepare("insert into follows (id, user_id, followable_type, followable_id, created_at, secret_page) values (?, ?, 'Page', ?, ?, 0)")
          .run(follow.body.id, b.user.id, p2, follow.body.created_at);
        raw.close();
        expect(await state()).toEqual({ follows: 4, followed: [p2, 'Second'], request: 'accepted', invite: ['accepted', true] });

        // A column the texts are not made of (a follow's copy of its page's secrecy) written: nothing is read again.
        const quiet = new Database(k.file);
        quiet.prepare('update follows set secret_page = secret_page').run();
        quiet.close();
        await state();
        from = reads.length;
        await state();
        expect([readById('F', from), readById('R', from), readById('I', from)]).toEqual([[], [], []]);
        // Written again with its id by `INSERT OR REPLACE` (whose delete fires no trigger), another page followed.
        const replacer = new Database(k.file);
        replacer
          .prepare("insert or replace into follows (id, user_id, followable_type, followable_id, created_at, secret_page) values (?, ?, 'Page', ?, ?, 0)")
          .run(follow.body.id, b.user.id, p1, follow.body.created_at);
        replacer.close();
        expect(await state()).toMatchObject({ follows: 4, followed: [p1, 'First'] });

        // A follow created: the follows kept stay, the new one alone is read.
        await state();
        const fresh = await k.call('POST', '/follows', { as: c.creds, body: { user_id: c.user.id, followable_type: 'Page', followable_id: p2 } });
        expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
        from = reads.length;
        const after = await ask('/follows?per_page=100');
        expect(after.map((f) => f.id)).toContain(fresh.body.id);
        expect(readById('F', from)).toEqual([fresh.body.id]);
      } finally {
        await k.close();
        removeDir(k.dir);
      }
    },
  );
});

describe('the events the list keeps by id', () => {
  it.skipIf(onPostgres)(
    'are retired by an attendance, an update or a delete, whoever writes it, and not by an event created [SQLite]',
    async () => {
      const reads: string[] = [];
      const k = await startApp({ storeOptions: { onQuery: (sql) => reads.push(sql) } });
      try {
        const a = await k.member();
        const times = (day: number) => ({ start_date: `2030-01-0${day}T10:00:00.000Z`, end_date: `2030-01-0${day}T12:00:00.000Z` });
        const create = async (name: string, day: number) => {
          const res = await k.call('POST', '/events', { as: a.creds, body: { name, user_id: a.user.id, places_limit: 5, ...times(day) } });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          return res.body.id as string;
        };
        const first = await create('First', 1);
        const second = await create('Second', 2);
        const list = async () => {
          const res = await k.app.inject({ method: 'GET', url: '/public-api/v1/events', headers: { 'api-key': k.admin.key, 'api-secret': k.admin.secret } });
          expect(res.statusCode, res.body).toBe(200);
          return (JSON.parse(res.body).items as { id: string; name: string; attendees_count: number; places_left: number }[]).map(
            (e) => [e.name, e.attendees_count, e.places_left],
          );
        };
        /** The events read by id (their texts) since `from`. */
        const readById = (from: number) => reads.slice(from).filter((sql) => sql.startsWith(`select 'E' ||`) && sql.includes('json_each')).length;
        // Three times: compiled from the second use on, then kept: nothing read by id.
        for (let round = 0; round < 3; round++) expect(await list()).toEqual([['First', 0, 5], ['Second', 0, 5]]);
        let from = reads.length;
        await list();
        expect(readById(from)).toBe(0);

        // An attendance (here) moves a count the text is made of.
        expect((await k.call('PUT', `/events/${first}/attendance`, { as: a.creds, body: { user_id: a.user.id, answer: 'yes' } })).status).toBe(200);
        expect(await list()).toEqual([['First', 1, 4], ['Second', 0, 5]]);
        // Another process renames one, then deletes the other.
        const raw = new Database(k.file);
        raw.prepare("update events set name = 'Renamed' where id = ?").run(second);
        expect(await list()).toEqual([['First', 1, 4], ['Renamed', 0, 5]]);
        raw.prepare('delete from events where id = ?').run(first);
        raw.close();
        expect(await list()).toEqual([['Renamed', 0, 5]]);

        // An event created: the one kept stays, the new one alone is read.
        await list();
        await create('Third', 3);
        from = reads.length;
        expect(await list()).toEqual([['Renamed', 0, 5], ['Third', 0, 5]]);
        expect(readById(from)).toBe(1);
      } finally {
        await k.close();
        removeDir(k.dir);
      }
    },
  );
});
