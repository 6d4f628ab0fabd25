import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { PREFIX } from '../helpers/server.js';

/** docs/security.md: body fields of any name, bounded error replies, multipart bodies that cannot be parsed. */

const api = useApp();

const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf', '__defineGetter__'];
const BOUNDARY = 'hostileboundary';

function encode(kind: 'json' | 'form' | 'multipart', fields: Record<string, string>): { type: string; payload: string } {
  if (kind === 'json') return { type: 'application/json', payload: `{${Object.entries(fields).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}` };
  if (kind === 'form') return { type: 'application/x-www-form-urlencoded', payload: new URLSearchParams(Object.entries(fields)).toString() };
  const parts = Object.entries(fields).map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  return { type: `multipart/form-data; boundary=${BOUNDARY}`, payload: `${parts.join('')}--${BOUNDARY}--\r\n` };
}

async function send(method: string, path: string, type: string, payload: string) {
  const res = await api.app.inject({
    method: method as 'POST',
    url: PREFIX + path,
    headers: { 'api-key': api.admin.key, 'api-secret': api.admin.secret, 'content-type': type },
    payload,
  });
  return { status: res.statusCode, bytes: Buffer.byteLength(res.body), body: JSON.parse(res.body || 'null') };
}

describe('a body field named after an Object.prototype member', () => {
  it('is a 422 naming it on every route with a body, as JSON, urlencoded and multipart (never a 500)', async () => {
    const doc = (await api.call('GET', '/openapi.json', { as: null })).body;
    const routes: [string, string][] = [];
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>))
      for (const [method, operation] of Object.entries(operations))
        if (operation.requestBody) routes.push([method.toUpperCase(), path.replace(PREFIX, '').replace(/\{[^}]+\}/g, '0123456789abcdef0123456789abcdef')]);
    expect(routes.length).toBeGreaterThan(15);
    for (const [method, path] of routes)
      for (const kind of ['json', 'form', 'multipart'] as const)
        for (const name of PROTOTYPE_NAMES) {
          const { type, payload } = encode(kind, { [name]: '1' });
          const res = await send(method, path, type, payload);
          const what = `${method} ${path} ${kind} ${name}: ${res.status} ${JSON.stringify(res.body)}`;
          // JSON's `__proto__` is refused by the JSON parser itself (400), as the contract allows.
          if (kind === 'json' && name === '__proto__') {
            expect(res.status, what).toBe(400);
            continue;
          }
          expect(res.status, what).toBe(422);
          expect(res.body.error.fields, what).toContainEqual({ field: name, message: 'is not a field of this request' });
        }
  });

  it('as `name[]` in a form does not take up the inherited member', async () => {
    const res = await send('POST', '/page_configurations', 'application/x-www-form-urlencoded', 'name=x&toString[]=a&toString[]=b');
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual([{ field: 'toString', message: 'is not a field of this request' }]);
  });
});

describe('error replies', () => {
  it('name at most 20 fields, the message saying how many more, whatever the body holds', async () => {
    const fields: Record<string, string> = { name: 'x' };
    for (let i = 0; i < 100_000; i++) fields[`f${i}`] = '';
    const { type, payload } = encode('form', fields);
    expect(payload.length).toBeLessThan(1024 * 1024);
    const res = await send('POST', '/page_configurations', type, payload);
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toHaveLength(20);
    expect(res.body.error.fields[0]).toEqual({ field: 'f0', message: 'is not a field of this request' });
    expect(res.body.error.message).toMatch(/and 99,980 more fields$/);
    expect(res.bytes).toBeLessThanOrEqual(16 * 1024);
  });

  it('are never larger than 16 KiB, whatever the names of the fields they name', async () => {
    // Names that take 6 bytes a character once escaped in JSON, and one name of half a million characters.
    const escaped: Record<string, string> = {};
    for (let i = 0; i < 25; i++) escaped[`${i}${'\u0001'.repeat(6000)}`] = 'x';
    // (`name`, required, is missing too: 26 fields in all.)
    for (const [fields, more] of [[escaped, /; and 6 more fields$/], [{ ['a'.repeat(500_000)]: 'x' }, /^aaa/]] as const)
      for (const kind of ['json', 'form'] as const) {
        const { type, payload } = encode(kind, fields);
        const res = await send('POST', '/page_configurations', type, payload);
        expect(res.status, kind).toBe(422);
        expect(res.bytes, kind).toBeLessThanOrEqual(16 * 1024);
        expect(res.body.error.fields.length, kind).toBeGreaterThan(0);
        expect(res.body.error.message, kind).toMatch(more);
      }
  });
});

describe('a multipart body that cannot be parsed', () => {
  const part = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
  it.each([
    ['cut inside a value', part('name', 'Cut')],
    ['cut after a value', `${part('name', 'Cut')}\r\n`],
    ['without its closing delimiter', `${part('name', 'Cut')}\r\n--${BOUNDARY}`],
    ['cut inside the headers of a part', `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n`],
    ['with no delimiter at all', 'name=Cut'],
    ['with a part that has no name', `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--\r\n`],
  ])('is a 400 invalid_body when %s', async (_label, payload) => {
    const res = await send('POST', '/page_configurations', `multipart/form-data; boundary=${BOUNDARY}`, payload);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
  });

  it('is told from a whole one, which is read (a preamble, quoted names, repeated fields)', async () => {
    const payload = `preamble\r\n${part('name', 'Whole')}\r\n${part('description', 'A "quoted" one')}\r\n--${BOUNDARY}--\r\nepilogue`;
    const res = await send('POST', '/page_configurations', `multipart/form-data; boundary="${BOUNDARY}"`, payload);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Whole', description: 'A "quoted" one' });
  });
});

describe('a cursor', () => {
  it('holding a NUL is one this server never gave: a 400 on every list (PostgreSQL answered 500, refusing the NUL)', async () => {
    const me = (await api.call('GET', '/me')).body;
    const nul = (keys: string[]) => Buffer.from(JSON.stringify(keys)).toString('base64url');
    const lists = ['/users', '/pages', '/statuses', '/follows', '/api_keys', `/users/${me.id}/notifications`, '/users?suspended=true'];
    const dated = ['/audit_log', '/reports', '/events', '/moderation_queue', '/removed_content'];
    for (const [paths, cursor] of [[lists, nul(['a\u0000'])], [dated, nul(['2026-11-20T10:00:00.000Z', '\u0000'])]] as const)
      for (const path of paths) {
        const res = await api.call('GET', `${path}${path.includes('?') ? '&' : '?'}cursor=${cursor}`);
        expect(res.status, path).toBe(400);
        expect(res.body.error.code, path).toBe('invalid_query');
      }
  });
});

describe('a query string', () => {
  it('with an escape that is not UTF-8 percent-encoded is a 400, as in a form body, not a search for U+FFFD', async () => {
    for (const query of ['nickname=%FF', 'nickname=%', 'nickname=a%E2%80', 'nickname=%ED%A0%80', '%FF=1']) {
      const res = await api.call('GET', `/users?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe('invalid_query');
    }
    // Escapes that decode (a space as `+`, a character in UTF-8) are taken.
    expect((await api.call('GET', '/users?nickname=%C3%A9+x')).status).toBe(200);
  });
});
