import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, createPage, createPageConfiguration, createUser, createUserWithKey, HEX_ID } from '../helpers/api.js';
import { useServer, type Credentials } from '../helpers/server.js';

const server = useServer();

const URL_FRIENDLY = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const tag = () => randomBytes(4).toString('hex');

/** GET /pages with a query, as the given caller (the bootstrap admin by default). */
async function listPages(query: string, as?: Credentials) {
  const res = await call(server, 'GET', `/pages?${query}`, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { items: { id: string; [k: string]: unknown }[]; total_items: number };
}

const idsOf = (list: { items: { id: string }[] }) => list.items.map((p) => p.id);

/** The follows of a page, as the admin (who sees every follow). */
async function followsOfPage(pageId: string) {
  const res = await call(server, 'GET', `/follows?followable_type=Page&followable_id=${pageId}`);
  expect(res.status).toBe(200);
  return res.body as { items: { user_id: string; [k: string]: unknown }[]; total_items: number };
}

const fieldNames = (body: { error: { fields?: { field: string }[] } }) => body.error.fields?.map((f) => f.field);

describe('POST /pages', () => {
  it('creates a page with every field of the spec', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const body = {
      name: `Garden club ${tag()}`,
      page_configuration_id: config.id,
      privacy: 'private',
      user_id: owner.id,
      description: 'We grow tomatoes',
    };
    const res = await call(server, 'POST', '/pages', { body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    expect(res.body.id).toMatch(HEX_ID);
    expect(res.body.slug).toMatch(URL_FRIENDLY);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();

    const fetched = await call(server, 'GET', `/pages/${res.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it('makes a URL-friendly slug and a different one for a second page of the same name', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const fields = { user_id: owner.id, page_configuration_id: config.id, name: 'Café des Arts!' };
    const first = await createPage(server, fields);
    expect(first.slug).toBe('cafe-des-arts');
    const second = await createPage(server, fields);
    const third = await createPage(server, fields);
    expect(second.name).toBe('Café des Arts!');
    for (const page of [second, third]) expect(page.slug).toMatch(/^cafe-des-arts-[0-9]+$/);
    expect(new Set([first.slug, second.slug, third.slug]).size).toBe(3);
    expect((await call(server, 'GET', `/pages/${second.id}`)).body.slug).toBe(second.slug);
  });

  it('makes distinct URL-friendly slugs for names with nothing URL-friendly in them and for long names', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const slugs: string[] = [];
    for (const name of ['¡¿!?', '¡¿!?', '日本語のページ', 'A'.repeat(150), 'A'.repeat(150)]) {
      const page = await createPage(server, { user_id: owner.id, page_configuration_id: config.id, name });
      expect(page.name).toBe(name);
      // Letters of every script stay (lower case), digits and `-`; nothing else (no spaces, no punctuation).
      expect(page.slug, name).toMatch(/^[\p{Ll}\p{Lo}\p{Lm}\p{N}\p{M}]+(-[\p{Ll}\p{Lo}\p{Lm}\p{N}\p{M}]+)*$/u);
      expect(Array.from(page.slug).length).toBeLessThanOrEqual(80);
      slugs.push(page.slug);
    }
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(slugs[2]).toMatch(/^日本語のページ(-\d+)?$/);
  });

  it('gives a name that slugifies like an earlier suffixed slug its own slug', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const base = `market-${tag()}`;
    const fields = { user_id: owner.id, page_configuration_id: config.id };
    const plain = await createPage(server, { ...fields, name: base });
    const two = await createPage(server, { ...fields, name: `${base} 2` });
    const again = await createPage(server, { ...fields, name: base });
    expect(plain.slug).toBe(base);
    expect(two.slug).toBe(`${base}-2`);
    expect(again.slug).toMatch(URL_FRIENDLY);
    expect(new Set([plain.slug, two.slug, again.slug]).size).toBe(3);
  });

  it('keeps slugs URL-friendly and distinct when earlier slugs end in numbers that are not small integers', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const fields = { user_id: owner.id, page_configuration_id: config.id };
    for (const suffix of ['1e21', '9007199254740993', '0x10']) {
      const base = `fair-${randomBytes(4).toString('hex')}`;
      const slugs = [
        (await createPage(server, { ...fields, name: base })).slug,
        (await createPage(server, { ...fields, name: `${base} ${suffix}` })).slug,
      ];
      for (let i = 0; i < 3; i++) {
        const res = await call(server, 'POST', '/pages', { body: { ...fields, name: base, privacy: 'public' } });
        expect(res.status, `${base} after ${slugs.join(', ')}`).toBe(201);
        slugs.push(res.body.slug);
      }
      for (const slug of slugs) expect(slug).toMatch(URL_FRIENDLY);
      expect(new Set(slugs).size, slugs.join(', ')).toBe(slugs.length);
    }
  });

  it('gives 20 concurrent pages of the same name 20 distinct slugs', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const name = `Rush ${tag()}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(server, 'POST', '/pages', {
          body: { name, privacy: 'public', user_id: owner.id, page_configuration_id: config.id },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const slugs = results.map((r) => r.body.slug as string);
    expect(new Set(slugs).size).toBe(20);
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(20);
  });

  it('takes ids sent as numbers as identifiers (a number that names no record is 404, not 422)', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const unknownConfig = await call(server, 'POST', '/pages', {
      body: { name: 'Numbers', privacy: 'public', user_id: owner.id, page_configuration_id: 12345 },
    });
    expect(unknownConfig.status).toBe(404);
    expect(unknownConfig.body.error.code).toBe('not_found');
    const unknownUser = await call(server, 'POST', '/pages', {
      body: { name: 'Numbers', privacy: 'public', user_id: 67890, page_configuration_id: config.id },
    });
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body.error.code).toBe('not_found');
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
    expect((await listPages(`owner=${owner.id}`)).total_items).toBe(0);
  });

  it('answers 422 naming each missing required field, and stores nothing', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const complete = { name: 'Incomplete', page_configuration_id: config.id, privacy: 'public', user_id: owner.id };
    for (const field of ['name', 'page_configuration_id', 'privacy', 'user_id'] as const) {
      const body: Record<string, unknown> = { ...complete };
      delete body[field];
      const res = await call(server, 'POST', '/pages', { body });
      expect(res.status, field).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual([{ field, message: 'is required' }]);
    }
    const empty = await call(server, 'POST', '/pages', { body: {} });
    expect(empty.status).toBe(422);
    expect(fieldNames(empty.body)?.sort()).toEqual(['name', 'page_configuration_id', 'privacy', 'user_id']);
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
    expect((await listPages(`owner=${owner.id}`)).total_items).toBe(0);
  });

  it('answers 422 for a blank or too long name, a bad description and a wrongly typed id', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const complete = { name: 'Fine', page_configuration_id: config.id, privacy: 'public', user_id: owner.id };
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(151) }, 'name'],
      [{ description: 'x'.repeat(5001) }, 'description'],
      [{ description: 7 }, 'description'],
      [{ user_id: true }, 'user_id'],
      [{ page_configuration_id: { id: config.id } }, 'page_configuration_id'],
    ];
    for (const [change, field] of cases) {
      const res = await call(server, 'POST', '/pages', { body: { ...complete, ...change } });
      expect(res.status, JSON.stringify(change)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(fieldNames(res.body)).toEqual([field]);
    }
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
  });

  it('answers 422 for a privacy outside public, private and secret, and stores nothing', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    for (const privacy of ['hidden', '', 'PUBLIC ', 3]) {
      const res = await call(server, 'POST', '/pages', {
        body: { name: 'Bad privacy', page_configuration_id: config.id, privacy, user_id: owner.id },
      });
      expect(res.status, String(privacy)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(fieldNames(res.body)).toEqual(['privacy']);
    }
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
  });

  it('answers 404 for an unknown page configuration, with no page and no follow left behind', async () => {
    const owner = await createUser(server);
    const res = await call(server, 'POST', '/pages', {
      body: { name: 'Orphan', page_configuration_id: 'f'.repeat(32), privacy: 'public', user_id: owner.id },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await listPages(`owner=${owner.id}`)).total_items).toBe(0);
    const follows = await call(server, 'GET', `/follows?user_id=${owner.id}`);
    expect(follows.body.total_items).toBe(0);
  });

  it('answers 404 for an unknown user, with no page left behind', async () => {
    const config = await createPageConfiguration(server);
    const res = await call(server, 'POST', '/pages', {
      body: { name: 'Nobody', page_configuration_id: config.id, privacy: 'public', user_id: 'e'.repeat(32) },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
  });

  it('refuses a Member creating a page for another user with 403, and stores nothing', async () => {
    const config = await createPageConfiguration(server);
    const { creds } = await createUserWithKey(server);
    const other = await createUser(server);
    const res = await call(server, 'POST', '/pages', {
      as: creds,
      body: { name: 'Not mine', page_configuration_id: config.id, privacy: 'public', user_id: other.id },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
  });

  it('lets a Member create a page for themself', async () => {
    const config = await createPageConfiguration(server);
    const { user, creds } = await createUserWithKey(server);
    const page = await createPage(server, { user_id: user.id, page_configuration_id: config.id }, creds);
    expect(page.user_id).toBe(user.id);
    expect(idsOf(await listPages(`page_configuration_id=${config.id}`, creds))).toEqual([page.id]);
  });

  it('lets an Admin create a page for any user, who then follows it (and the Admin does not)', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const page = await createPage(server, { user_id: owner.id, page_configuration_id: config.id, privacy: 'secret' });
    expect(page.user_id).toBe(owner.id);
    const follows = await followsOfPage(page.id);
    expect(follows.total_items).toBe(1);
    expect(follows.items[0]).toMatchObject({ user_id: owner.id, followable_type: 'Page', followable_id: page.id });
  });

  it('makes the creator follow the page from creation, visible to the creator in GET /follows', async () => {
    const config = await createPageConfiguration(server);
    const { user, creds } = await createUserWithKey(server);
    const page = await createPage(server, { user_id: user.id, page_configuration_id: config.id }, creds);
    const res = await call(server, 'GET', `/follows?followable_type=Page&followable_id=${page.id}`, { as: creds });
    expect(res.status).toBe(200);
    expect(res.body.total_items).toBe(1);
    expect(res.body.items[0]).toMatchObject({ user_id: user.id, followable_type: 'Page', followable_id: page.id });
    expect(res.body.items[0].followable).toMatchObject({ id: page.id, slug: page.slug });
  });

  it('refuses a request without credentials with 401 and stores nothing', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const res = await call(server, 'POST', '/pages', {
      as: null,
      body: { name: 'Anonymous', page_configuration_id: config.id, privacy: 'public', user_id: owner.id },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
  });
});

describe('POST /pages with form bodies', () => {
  const comparable = (page: Record<string, unknown>) => {
    const { id: _id, slug: _slug, created_at: _c, updated_at: _u, ...rest } = page;
    return rest;
  };

  it('gives the same record for urlencoded, multipart and JSON bodies', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const body = {
      name: `Choir ${tag()}`,
      page_configuration_id: config.id,
      privacy: 'private',
      user_id: owner.id,
      description: 'Tuesdays at eight',
    };
    const records: Record<string, unknown>[] = [];
    for (const kind of ['json', 'form', 'multipart'] as const) {
      const res = await call(server, 'POST', '/pages', { kind, body });
      expect(res.status, kind).toBe(201);
      expect(res.body.slug).toMatch(URL_FRIENDLY);
      records.push(res.body);
    }
    expect(comparable(records[1]!)).toEqual(comparable(records[0]!));
    expect(comparable(records[2]!)).toEqual(comparable(records[0]!));
    expect(comparable(records[0]!)).toEqual(body);
    const listed = await listPages(`page_configuration_id=${config.id}`);
    expect(listed.total_items).toBe(3);
    for (const record of records) expect((await followsOfPage(record.id as string)).items[0]?.user_id).toBe(owner.id);
  });

  it('treats an empty description in a form like no description', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const body = { name: 'Quiet', page_configuration_id: config.id, privacy: 'public', user_id: owner.id };
    const json = await call(server, 'POST', '/pages', { body });
    const form = await call(server, 'POST', '/pages', { kind: 'form', body: { ...body, description: '' } });
    expect(form.status).toBe(201);
    expect(json.body.description).toBeNull();
    expect(form.body.description).toBeNull();
  });

  it('answers 422 naming the field missing from a form, and stores nothing', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    for (const kind of ['form', 'multipart'] as const) {
      const res = await call(server, 'POST', '/pages', {
        kind,
        body: { name: 'Half a form', page_configuration_id: config.id, user_id: owner.id },
      });
      expect(res.status, kind).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(fieldNames(res.body)).toEqual(['privacy']);
    }
    expect((await listPages(`page_configuration_id=${config.id}`)).total_items).toBe(0);
  });
});

describe('GET /pages', () => {
  it('filters by page_configuration_id, owner and privacy, exactly', async () => {
    const [configA, configB] = [await createPageConfiguration(server), await createPageConfiguration(server)];
    const [ada, bob] = [await createUser(server), await createUser(server)];
    const adaPublic = await createPage(server, { user_id: ada.id, page_configuration_id: configA.id, privacy: 'public' });
    const bobPrivate = await createPage(server, { user_id: bob.id, page_configuration_id: configA.id, privacy: 'private' });
    const adaSecret = await createPage(server, { user_id: ada.id, page_configuration_id: configA.id, privacy: 'secret' });
    const adaOther = await createPage(server, { user_id: ada.id, page_configuration_id: configB.id, privacy: 'public' });

    const byConfig = await listPages(`page_configuration_id=${configA.id}`);
    expect(byConfig.total_items).toBe(3);
    expect(idsOf(byConfig).sort()).toEqual([adaPublic.id, bobPrivate.id, adaSecret.id].sort());

    const byOwner = await listPages(`owner=${ada.id}`);
    expect(idsOf(byOwner).sort()).toEqual([adaPublic.id, adaSecret.id, adaOther.id].sort());
    expect(byOwner.total_items).toBe(3);

    expect(idsOf(await listPages(`page_configuration_id=${configA.id}&privacy=private`))).toEqual([bobPrivate.id]);
    expect(idsOf(await listPages(`page_configuration_id=${configA.id}&privacy=secret`))).toEqual([adaSecret.id]);
    const adaPublicPages = await listPages(`owner=${ada.id}&privacy=public`);
    expect(idsOf(adaPublicPages).sort()).toEqual([adaPublic.id, adaOther.id].sort());
    expect(idsOf(await listPages(`owner=${ada.id}&page_configuration_id=${configB.id}`))).toEqual([adaOther.id]);
    expect((await listPages(`owner=${bob.id}&page_configuration_id=${configB.id}`)).total_items).toBe(0);

    // Exact match: a prefix of an id, or the id in another case, matches nothing.
    expect((await listPages(`owner=${ada.id.slice(0, 31)}`)).total_items).toBe(0);
    expect((await listPages(`page_configuration_id=${configA.id.slice(0, 31)}`)).total_items).toBe(0);
    expect((await listPages(`page_configuration_id=${configA.id.toUpperCase()}`)).total_items).toBe(0);
  });

  it('answers 400 for a privacy filter that is not a privacy', async () => {
    for (const privacy of ['pub', 'hidden', 'Public']) {
      const res = await call(server, 'GET', `/pages?privacy=${privacy}`);
      expect(res.status, privacy).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
  });

  it('pages through results: full pages, the last partial page, beyond the end', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const created: string[] = [];
    for (let i = 0; i < 5; i++)
      created.push((await createPage(server, { user_id: owner.id, page_configuration_id: config.id })).id);
    const q = `page_configuration_id=${config.id}&per_page=2`;
    const pages = [await listPages(`${q}&page=1`), await listPages(`${q}&page=2`), await listPages(`${q}&page=3`)];
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    for (const p of pages) expect(p.total_items).toBe(5);
    expect(pages.flatMap(idsOf).sort()).toEqual([...created].sort());
    expect(await listPages(`${q}&page=4`)).toEqual({ items: [], total_items: 5 });
    expect(await listPages(`${q}&page=1000`)).toEqual({ items: [], total_items: 5 });

    const whole = await listPages(`page_configuration_id=${config.id}`);
    expect(whole.items).toHaveLength(5);
    expect((await listPages(`page_configuration_id=${config.id}&per_page=100`)).items).toHaveLength(5);
  });

  it('answers 400 for per_page over 100 and other bad pagination', async () => {
    for (const query of ['per_page=101', 'per_page=0', 'page=0', 'page=-1', 'per_page=2.5', 'page=abc']) {
      const res = await call(server, 'GET', `/pages?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
  });
});

describe('GET /pages/{id}', () => {
  it('answers the page to a Member when it is public or private', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const { creds } = await createUserWithKey(server);
    for (const privacy of ['public', 'private']) {
      const page = await createPage(server, { user_id: owner.id, page_configuration_id: config.id, privacy });
      const res = await call(server, 'GET', `/pages/${page.id}`, { as: creds });
      expect(res.status, privacy).toBe(200);
      expect(res.body).toEqual(page);
    }
  });

  it('answers 404 for an unknown id', async () => {
    const res = await call(server, 'GET', `/pages/${'0'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('secret pages', () => {
  it('are invisible to a Member outside them, in lists, counts and by id', async () => {
    const config = await createPageConfiguration(server);
    const { user: owner } = await createUserWithKey(server);
    const { creds: outsider } = await createUserWithKey(server);
    const open = await createPage(server, { user_id: owner.id, page_configuration_id: config.id, privacy: 'public' });
    const closed = await createPage(server, { user_id: owner.id, page_configuration_id: config.id, privacy: 'private' });
    const secret = await createPage(server, { user_id: owner.id, page_configuration_id: config.id, privacy: 'secret' });

    const listed = await listPages(`page_configuration_id=${config.id}`, outsider);
    expect(idsOf(listed).sort()).toEqual([open.id, closed.id].sort());
    expect(listed.total_items).toBe(2);
    expect(await listPages(`page_configuration_id=${config.id}&privacy=secret`, outsider)).toEqual({
      items: [],
      total_items: 0,
    });
    expect((await listPages(`owner=${owner.id}`, outsider)).total_items).toBe(2);

    const one = await call(server, 'GET', `/pages/${secret.id}`, { as: outsider });
    expect(one.status).toBe(404);
    expect(one.body.error.code).toBe('not_found');
  });

  it('are visible to their creator and to Admins', async () => {
    const config = await createPageConfiguration(server);
    const { user: owner, creds: ownerCreds } = await createUserWithKey(server);
    const secret = await createPage(
      server,
      { user_id: owner.id, page_configuration_id: config.id, privacy: 'secret' },
      ownerCreds,
    );
    for (const as of [ownerCreds, server.admin]) {
      const listed = await listPages(`page_configuration_id=${config.id}`, as);
      expect(idsOf(listed)).toEqual([secret.id]);
      expect(listed.total_items).toBe(1);
      const one = await call(server, 'GET', `/pages/${secret.id}`, { as });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(secret);
    }
  });

  it('are visible to a member who follows them, for as long as the follow lasts', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const { user: member, creds } = await createUserWithKey(server);
    const secret = await createPage(server, { user_id: owner.id, page_configuration_id: config.id, privacy: 'secret' });
    expect((await call(server, 'GET', `/pages/${secret.id}`, { as: creds })).status).toBe(404);

    // An Admin may make a follow for any user on any page.
    const follow = await call(server, 'POST', '/follows', {
      body: { followable_type: 'Page', followable_id: secret.id, user_id: member.id },
    });
    expect(follow.status).toBe(201);

    const listed = await listPages(`page_configuration_id=${config.id}`, creds);
    expect(idsOf(listed)).toEqual([secret.id]);
    expect(listed.total_items).toBe(1);
    const one = await call(server, 'GET', `/pages/${secret.id}`, { as: creds });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(secret);

    expect((await call(server, 'DELETE', `/follows/${follow.body.id}`, { as: creds })).status).toBe(204);
    expect((await call(server, 'GET', `/pages/${secret.id}`, { as: creds })).status).toBe(404);
    expect((await listPages(`page_configuration_id=${config.id}`, creds)).total_items).toBe(0);
  });
});
