import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, createPageConfiguration, createUserWithKey, HEX_ID } from '../helpers/api.js';
import { useServer } from '../helpers/server.js';

const server = useServer();

const tag = () => randomBytes(4).toString('hex');

/** Every stored page configuration, walking the list to its end. */
async function allConfigurations(): Promise<{ id: string; name: string }[]> {
  const all: { id: string; name: string }[] = [];
  for (let page = 1; ; page++) {
    const res = await call(server, 'GET', `/page_configurations?per_page=100&page=${page}`);
    expect(res.status).toBe(200);
    all.push(...res.body.items);
    if (res.body.items.length < 100) return all;
  }
}

const storedNamed = async (name: string) => (await allConfigurations()).filter((c) => c.name === name);

describe('POST /page_configurations', () => {
  it('lets an Admin create one with a name and a description', async () => {
    const name = `Clubs ${tag()}`;
    const res = await call(server, 'POST', '/page_configurations', {
      body: { name, description: 'Pages for local clubs' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name, description: 'Pages for local clubs' });
    expect(res.body.id).toMatch(HEX_ID);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();

    const fetched = await call(server, 'GET', `/page_configurations/${res.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it('stores no description as null', async () => {
    const res = await call(server, 'POST', '/page_configurations', { body: { name: `Bare ${tag()}` } });
    expect(res.status).toBe(201);
    expect(res.body.description).toBeNull();
  });

  it('accepts a urlencoded and a multipart body', async () => {
    for (const kind of ['form', 'multipart'] as const) {
      const name = `Form ${kind} ${tag()}`;
      const res = await call(server, 'POST', '/page_configurations', { kind, body: { name, description: 'by form' } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name, description: 'by form' });
      expect(await storedNamed(name)).toHaveLength(1);
    }
  });

  it('refuses a Member with 403 and stores nothing', async () => {
    const { creds } = await createUserWithKey(server);
    const name = `Member try ${tag()}`;
    const res = await call(server, 'POST', '/page_configurations', { as: creds, body: { name } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await storedNamed(name)).toEqual([]);
  });

  it('refuses a request without credentials with 401', async () => {
    const name = `Anonymous ${tag()}`;
    const res = await call(server, 'POST', '/page_configurations', { as: null, body: { name } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(await storedNamed(name)).toEqual([]);
  });

  it('answers 422 naming the field when the name is missing, blank or too long, and stores nothing', async () => {
    const before = (await allConfigurations()).length;
    const missing = await call(server, 'POST', '/page_configurations', { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.fields).toEqual([{ field: 'name', message: 'is required' }]);
    for (const body of [{ description: 'no name' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 42 }]) {
      const res = await call(server, 'POST', '/page_configurations', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['name']);
    }
    expect((await allConfigurations()).length).toBe(before);
  });

  it('answers 400 for malformed JSON and stores nothing', async () => {
    const before = (await allConfigurations()).length;
    const res = await call(server, 'POST', '/page_configurations', { body: '{"name": "broken"' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
    expect((await allConfigurations()).length).toBe(before);
  });
});

describe('GET /page_configurations', () => {
  it('pages through every configuration with page and per_page', async () => {
    for (let i = 0; i < 3; i++) await createPageConfiguration(server);
    const total = (await call(server, 'GET', '/page_configurations')).body.total_items as number;
    expect(total).toBeGreaterThanOrEqual(3);

    const seen = new Set<string>();
    const lastPage = Math.ceil(total / 2);
    for (let page = 1; page <= lastPage; page++) {
      const res = await call(server, 'GET', `/page_configurations?per_page=2&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.total_items).toBe(total);
      expect(res.body.items).toHaveLength(page < lastPage ? 2 : total - 2 * (lastPage - 1));
      for (const item of res.body.items) seen.add(item.id);
    }
    expect(seen.size).toBe(total);

    const beyond = await call(server, 'GET', `/page_configurations?per_page=2&page=${lastPage + 1}`);
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({ items: [], total_items: total });
  });

  it('lists a new configuration with its fields', async () => {
    const created = await createPageConfiguration(server);
    const listed = (await allConfigurations()).find((c) => c.id === created.id);
    expect(listed).toEqual(created);
  });

  it('lets a Member read the list and a single configuration', async () => {
    const created = await createPageConfiguration(server);
    const { creds } = await createUserWithKey(server);
    const list = await call(server, 'GET', '/page_configurations?per_page=100', { as: creds });
    expect(list.status).toBe(200);
    expect(list.body.total_items).toBeGreaterThanOrEqual(1);
    const one = await call(server, 'GET', `/page_configurations/${created.id}`, { as: creds });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created);
  });

  it('answers 400 for per_page over 100, per_page 0 and page 0', async () => {
    for (const query of ['per_page=101', 'per_page=0', 'page=0', 'per_page=ten']) {
      const res = await call(server, 'GET', `/page_configurations?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_query');
    }
    expect((await call(server, 'GET', '/page_configurations?per_page=100')).status).toBe(200);
  });
});

describe('GET /page_configurations/{id}', () => {
  it('answers 404 for an unknown id', async () => {
    const res = await call(server, 'GET', `/page_configurations/${'0'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
