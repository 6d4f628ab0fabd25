import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createPageConfiguration,
  createUser,
  createUserWithKey,
  userBody,
  type ApiResponse,
  type BodyKind,
} from '../helpers/api.js';
import { useServer } from '../helpers/server.js';
import { inlineRefs } from '../helpers/openapi.js';

const server = useServer();
/** A Member with their own key (made once: a key costs a process start). */
let member: Awaited<ReturnType<typeof createUserWithKey>>;
beforeAll(async () => {
  member = await createUserWithKey(server);
});

const tag = () => randomBytes(4).toString('hex');
const MIB = 1024 * 1024;

async function countWithNickname(nickname: string): Promise<number> {
  return (await call(server, 'GET', `/users?nickname=${encodeURIComponent(nickname)}`)).body.total_items;
}

async function pagesOf(userId: string): Promise<{ id: string; name: string }[]> {
  return (await call(server, 'GET', `/pages?owner=${userId}&per_page=100`)).body.items;
}

/**
 * The contract's error body: exactly {error: {code, message[, fields]}}; fields only on 422, and always on a
 * validation failure.
 */
function expectErrorShape(res: ApiResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  const { error } = res.body;
  expect(error.code).toBe(code);
  expect(error.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  const withFields = code === 'validation_failed';
  expect(Object.keys(error).sort()).toEqual(withFields ? ['code', 'fields', 'message', 'request_id'] : ['code', 'message', 'request_id']);
  expect(error.request_id).toBe(res.headers.get('x-request-id'));
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  if (withFields) {
    expect(error.fields.length).toBeGreaterThan(0);
    for (const f of error.fields) {
      expect(Object.keys(f).sort()).toEqual(['field', 'message']);
      expect(typeof f.field).toBe('string');
      expect(typeof f.message).toBe('string');
    }
  }
}

describe('request bodies', () => {
  it('refuses malformed JSON with 400 invalid_body and stores nothing', async () => {
    const body = userBody();
    const text = JSON.stringify(body).slice(0, -5);
    const res = await call(server, 'POST', '/users', { body: text });
    expectErrorShape(res, 400, 'invalid_body');
    expect(await countWithNickname(body.nickname as string)).toBe(0);
  });

  it.each([
    ['an array', JSON.stringify([userBody()])],
    ['a string', '"hello"'],
    ['a number', '42'],
  ])('refuses a JSON body that is %s with 400 invalid_body', async (_label, text) => {
    const res = await call(server, 'POST', '/users', { body: text });
    expectErrorShape(res, 400, 'invalid_body');
  });

  it('refuses JSON with a __proto__ key (or a constructor.prototype), at any depth, saying so: it is valid JSON', async () => {
    const refusal = /^A JSON body may not have a key named "__proto__", nor a "constructor" key whose value has a "prototype" key/;
    for (const body of ['{"__proto__": {"admin": true}}', '{"nickname": "x", "deep": [{"\\u005f_proto__": 1}]}', '{"a": {"constructor": {"prototype": {}}}}']) {
      const res = await call(server, 'POST', '/users', { body });
      expectErrorShape(res, 400, 'invalid_body');
      expect(res.body.error.message, body).toMatch(refusal);
    }
    // JSON that is not JSON keeps its own words.
    const broken = await call(server, 'POST', '/users', { body: '{"__proto__": ' });
    expectErrorShape(broken, 400, 'invalid_body');
    expect(broken.body.error.message).toMatch(/not valid JSON/);
  });

  it.each(['text/plain', 'application/xml', 'application/octet-stream'])(
    'refuses Content-Type %s with 415 unsupported_media_type and stores nothing',
    async (contentType) => {
      const body = userBody();
      const res = await call(server, 'POST', '/users', {
        body: JSON.stringify(body),
        headers: { 'content-type': contentType },
      });
      expectErrorShape(res, 415, 'unsupported_media_type');
      expect(await countWithNickname(body.nickname as string)).toBe(0);
    },
  );

  it.each(['json', 'form', 'multipart'] as BodyKind[])(
    'refuses a %s body over 1 MiB with 413 payload_too_large and stores nothing',
    async (kind) => {
      const body = userBody({ first_name: 'x'.repeat(MIB + 10) });
      const res = await call(server, 'POST', '/users', { body, kind });
      expectErrorShape(res, 413, 'payload_too_large');
      expect(await countWithNickname(body.nickname as string)).toBe(0);
    },
  );

  it('refuses a multipart body over 1 MiB made of fields each under the limit', async () => {
    const body = userBody({ filler_a: 'a'.repeat(MIB / 2), filler_b: 'b'.repeat(MIB / 2 + 10) });
    const res = await call(server, 'POST', '/users', { body, kind: 'multipart' });
    expectErrorShape(res, 413, 'payload_too_large');
    expect(await countWithNickname(body.nickname as string)).toBe(0);
  });

  // Sent in chunks, without a declared length: still held to the body limit as it is read.
  it('refuses a chunked multipart body (no Content-Length) over 1 MiB with 413 payload_too_large', async () => {
    const body = userBody({ filler_a: 'a'.repeat(MIB / 2), filler_b: 'b'.repeat(MIB / 2 + 10) });
    const form = new FormData();
    for (const [k, v] of Object.entries(body)) form.append(k, String(v));
    const encoded = new Request('http://localhost/', { method: 'POST', body: form });
    const response = await fetch(`${server.url}/public-api/v1/users`, {
      method: 'POST',
      headers: {
        'api-key': server.admin.key,
        'api-secret': server.admin.secret,
        'content-type': encoded.headers.get('content-type')!,
      },
      body: encoded.body,
      duplex: 'half',
    } as RequestInit);
    const res = { status: response.status, headers: response.headers, body: await response.json() };
    expectErrorShape(res, 413, 'payload_too_large');
    expect(await countWithNickname(body.nickname as string)).toBe(0);
  });

  it('refuses a multipart Content-Type without a boundary with 400 invalid_body, not a 500', async () => {
    const body = userBody();
    const res = await call(server, 'POST', '/users', {
      body: `--xx\r\nContent-Disposition: form-data; name="nickname"\r\n\r\n${body.nickname}\r\n--xx--\r\n`,
      headers: { 'content-type': 'multipart/form-data' },
    });
    expectErrorShape(res, 400, 'invalid_body');
  });

  it('refuses a multipart body cut inside a file part with 400, not a 500', async () => {
    const res = await call(server, 'POST', '/users', {
      body: '--xx\r\nContent-Disposition: form-data; name="a"; filename="f.txt"\r\n\r\nvalue',
      headers: { 'content-type': 'multipart/form-data; boundary=xx' },
    });
    expectErrorShape(res, 400, 'invalid_body');
  });

  it('accepts a body just under the limit', async () => {
    // Unknown fields are refused, so the bulk is whitespace, which JSON allows between tokens.
    const body = JSON.stringify(userBody()) + ' '.repeat(MIB - 4096);
    const res = await call(server, 'POST', '/users', { body });
    expect(res.status).toBe(201);
  });

  it('takes Content-Type: application/json with an empty body as no body, not as an error', async () => {
    const empty = await call(server, 'POST', '/users', { body: '' , headers: { 'content-type': 'application/json' } });
    expectErrorShape(empty, 422, 'validation_failed');
    expect(empty.body.error.fields.map((f: { field: string }) => f.field)).toEqual([
      'first_name',
      'last_name',
      'nickname',
      'email',
      'password',
      'accept_conditions',
      'accept_confidentiality',
    ]);

    const target = await createUser(server);
    const follow = await call(server, 'POST', '/follows', {
      as: member.creds,
      body: { followable_type: 'User', followable_id: target.id, user_id: member.user.id },
    });
    expect(follow.status).toBe(201);
    const res = await fetch(`${server.url}/public-api/v1/follows/${follow.body.id}`, {
      method: 'DELETE',
      headers: { 'api-key': member.creds.key, 'api-secret': member.creds.secret, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const left = await call(server, 'GET', `/follows?user_id=${member.user.id}&followable_id=${target.id}`);
    expect(left.body.total_items).toBe(0);
  });

  it('accepts a charset in the JSON Content-Type', async () => {
    const res = await call(server, 'POST', '/users', {
      body: userBody(),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });
});

describe('the same create as JSON, urlencoded and multipart', () => {
  const shape = (record: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v === null ? 'null' : typeof v]));

  it('gives the same user record', async () => {
    const records: Record<string, unknown>[] = [];
    for (const kind of ['json', 'form', 'multipart'] as BodyKind[]) {
      const body = userBody({ first_name: 'Same', last_name: 'Shape' });
      const res = await call(server, 'POST', '/users', { body, kind });
      expect(res.status, kind).toBe(201);
      expect(res.body).toMatchObject({
        first_name: 'Same',
        last_name: 'Shape',
        fullname: 'Same Shape',
        name: 'Same Shape',
        nickname: body.nickname,
        email: body.email,
        tagline: null,
      });
      expect((await call(server, 'GET', `/users/${res.body.id}`)).body).toEqual(res.body);
      records.push(res.body);
    }
    expect(shape(records[1]!)).toEqual(shape(records[0]!));
    expect(shape(records[2]!)).toEqual(shape(records[0]!));
    expect(new Set(records.map((r) => r.permission_set_id)).size).toBe(1);
  });

  it('reads form booleans: "false" in a form is a refused consent', async () => {
    for (const kind of ['form', 'multipart'] as BodyKind[]) {
      const body = userBody({ accept_conditions: 'false' });
      const res = await call(server, 'POST', '/users', { body, kind });
      expectErrorShape(res, 422, 'validation_failed');
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['accept_conditions']);
      expect(await countWithNickname(body.nickname as string)).toBe(0);
    }
  });

  it('gives the same page record', async () => {
    const owner = await createUser(server);
    const config = await createPageConfiguration(server);
    const records: Record<string, unknown>[] = [];
    for (const kind of ['json', 'form', 'multipart'] as BodyKind[]) {
      const body = {
        name: 'Same Page',
        privacy: 'private',
        description: 'Described',
        page_configuration_id: config.id,
        user_id: owner.id,
      };
      const res = await call(server, 'POST', '/pages', { body, kind });
      expect(res.status, kind).toBe(201);
      const { id, slug, created_at, updated_at, ...rest } = res.body;
      expect(rest).toEqual({
        name: 'Same Page',
        privacy: 'private',
        description: 'Described',
        page_configuration_id: config.id,
        user_id: owner.id,
      });
      expect([id, slug, created_at, updated_at].every((v) => typeof v === 'string')).toBe(true);
      records.push(res.body);
    }
    expect(shape(records[1]!)).toEqual(shape(records[0]!));
    expect(shape(records[2]!)).toEqual(shape(records[0]!));
    expect((await pagesOf(owner.id)).map((p) => p.id).sort()).toEqual(records.map((r) => r.id).sort());
  });

  it('takes arrays in forms as repeated `field[]` or `field` (user_target_ids of POST /invites)', async () => {
    const admin = (await call(server, 'GET', '/me')).body as { id: string };
    const config = await createPageConfiguration(server);
    const encodings: { label: string; send: (base: Record<string, string>, ids: string[]) => Promise<ApiResponse> }[] = [
      {
        label: 'urlencoded field[]',
        send: (base, ids) => call(server, 'POST', '/invites', { body: { ...base, user_target_ids: ids }, kind: 'form' }),
      },
      {
        label: 'urlencoded repeated field',
        send: (base, ids) => {
          const form = new URLSearchParams(base);
          for (const id of ids) form.append('user_target_ids', id);
          return call(server, 'POST', '/invites', {
            body: form.toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          });
        },
      },
      {
        label: 'multipart repeated field',
        send: (base, ids) =>
          call(server, 'POST', '/invites', { body: { ...base, user_target_ids: ids }, kind: 'multipart' }),
      },
      {
        label: 'multipart field[]',
        send: (base, ids) =>
          call(server, 'POST', '/invites', { body: { ...base, 'user_target_ids[]': ids }, kind: 'multipart' }),
      },
    ];
    for (const { label, send } of encodings) {
      const page = await call(server, 'POST', '/pages', {
        body: { name: `Arrays ${tag()}`, privacy: 'private', page_configuration_id: config.id, user_id: admin.id },
      });
      const invitees = await Promise.all([createUser(server), createUser(server)]);
      const ids = invitees.map((u) => u.id);
      const base = { target_type: 'Page', target_id: page.body.id as string, user_id: admin.id };
      const res = await send(base, ids);
      expect(res.status, label).toBe(200);
      expect(res.body.errors, label).toEqual([]);
      expect(res.body.success.map((i: { user_target_id: string }) => i.user_target_id).sort(), label).toEqual(
        [...ids].sort(),
      );
      const single = await send(base, [(await createUser(server)).id]);
      expect(single.body.success, `${label}, one value`).toHaveLength(1);
    }
  });

  it('accepts identifiers sent as numbers in JSON', async () => {
    // Our ids are hex strings; a numeric id names no record, so the number must reach the lookup as a string.
    const res = await call(server, 'POST', '/pages', {
      body: { name: 'Numeric', privacy: 'public', page_configuration_id: 12345, user_id: member.user.id },
      as: member.creds,
    });
    expectErrorShape(res, 404, 'not_found');
  });
});

describe('routes and errors', () => {
  it('answers 404 route_not_found for an unknown route to a caller with credentials; 401 to one without, its body unread', async () => {
    expectErrorShape(await call(server, 'GET', '/nothing-here'), 404, 'route_not_found');
    expectErrorShape(await call(server, 'POST', '/nothing-here', { body: { a: 1 } }), 404, 'route_not_found');
    const outside = await fetch(`${server.url}/somewhere/else`, { headers: { 'api-key': server.admin.key, 'api-secret': server.admin.secret } });
    expect(outside.status).toBe(404);
    expect(await outside.json()).toEqual({ error: { code: 'route_not_found', message: expect.any(String), request_id: expect.any(String) } });
    // Without credentials, a path no route has (or a method it does not take) is refused as any other: a malformed body
    // is not parsed (400 invalid_body would say it was read).
    expectErrorShape(await call(server, 'GET', '/nothing-here', { as: null }), 401, 'unauthorized');
    expectErrorShape(await call(server, 'POST', '/nothing-here', { as: null, body: '{"a":' }), 401, 'unauthorized');
    expectErrorShape(await call(server, 'PUT', '/users', { as: null, body: '{"a":' }), 401, 'unauthorized');
    expect((await fetch(`${server.url}/somewhere/else`)).status).toBe(401);
    // So is a path the router cannot read (a malformed escape): 400 is for callers with credentials.
    const malformed = await fetch(`${server.url}/public-api/v1/pages/%E0%A4%A`);
    expect(malformed.status).toBe(401);
    expect(malformed.headers.get('connection')).toBe('close');
  });

  it('answers every kind of error in exactly the contract shape', async () => {
    const taken = await createUser(server);
    expectErrorShape(await call(server, 'POST', '/users', { body: '{' }), 400, 'invalid_body');
    expectErrorShape(await call(server, 'GET', '/users?per_page=101'), 400, 'invalid_query');
    expectErrorShape(await call(server, 'GET', '/users', { as: null }), 401, 'unauthorized');
    expectErrorShape(
      await call(server, 'POST', '/page_configurations', { as: member.creds, body: { name: 'No' } }),
      403,
      'forbidden',
    );
    expectErrorShape(await call(server, 'GET', `/users/${'f'.repeat(32)}`), 404, 'not_found');
    expectErrorShape(await call(server, 'GET', '/no/such/route'), 404, 'route_not_found');
    expectErrorShape(
      await call(server, 'POST', '/users', { body: userBody({ email: taken.email }) }),
      409,
      'email_taken',
    );
    expectErrorShape(
      await call(server, 'POST', '/users', { body: userBody({ nickname: taken.nickname }) }),
      409,
      'nickname_taken',
    );
    expectErrorShape(
      await call(server, 'POST', '/users', { body: { pad: 'p'.repeat(MIB + 1) } }),
      413,
      'payload_too_large',
    );
    expectErrorShape(
      await call(server, 'POST', '/users', { body: 'x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    expectErrorShape(await call(server, 'POST', '/users', { body: {} }), 422, 'validation_failed');
    const key = `idem-${tag()}`;
    expect((await call(server, 'POST', '/users', { body: userBody(), headers: { 'idempotency-key': key } })).status).toBe(
      201,
    );
    expectErrorShape(
      await call(server, 'POST', '/users', { body: userBody(), headers: { 'idempotency-key': key } }),
      422,
      'idempotency_key_reused',
    );
    expectErrorShape(
      await call(server, 'POST', '/users', { body: userBody(), headers: { 'idempotency-key': 'k'.repeat(300) } }),
      400,
      'invalid_header',
    );
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, without acting again', async () => {
    const key = `idem-${tag()}`;
    const body = userBody();
    const first = await call(server, 'POST', '/users', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await call(server, 'POST', '/users', { body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countWithNickname(body.nickname as string)).toBe(1);
  });

  it('takes the same fields in another order, at any depth, for the same request: replayed, not refused', async () => {
    const owner = await createUserWithKey(server);
    const event = {
      name: `Order ${tag()}`,
      user_id: owner.user.id,
      start_date: '2030-01-01T10:00:00Z',
      end_date: '2030-01-01T12:00:00Z',
      tickets: [{ name: 'Entry', price: '5.00', currency: 'EUR' }],
    };
    const reordered = {
      tickets: [{ currency: 'EUR', price: '5.00', name: 'Entry' }],
      end_date: event.end_date,
      start_date: event.start_date,
      user_id: event.user_id,
      name: event.name,
    };
    const key = `idem-${tag()}`;
    const first = await call(server, 'POST', '/events', { as: owner.creds, body: event, headers: { 'idempotency-key': key } });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await call(server, 'POST', '/events', { as: owner.creds, body: reordered, headers: { 'idempotency-key': key } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    // Another value is another request, whatever the order.
    const other = await call(server, 'POST', '/events', { as: owner.creds, body: { ...reordered, name: `${event.name}!` }, headers: { 'idempotency-key': key } });
    expectErrorShape(other, 422, 'idempotency_key_reused');
  });

  it('refuses a key over 255 characters as a header it cannot read (400 invalid_header)', async () => {
    const res = await call(server, 'POST', '/page_configurations', { body: { name: `Long ${tag()}` }, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expectErrorShape(res, 400, 'invalid_header');
    expect(res.body.error.message).toBe('Idempotency-Key must be at most 255 characters');
  });

  it('makes one page only, where the same body without a key makes two', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const body = { name: `Once ${tag()}`, privacy: 'public', page_configuration_id: config.id, user_id: owner.id };
    const key = `idem-${tag()}`;
    const first = await call(server, 'POST', '/pages', { body, headers: { 'idempotency-key': key } });
    const second = await call(server, 'POST', '/pages', { body, headers: { 'idempotency-key': key } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).toBe(first.body.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await pagesOf(owner.id)).map((p) => p.id)).toEqual([first.body.id]);

    const unkeyed = await call(server, 'POST', '/pages', { body });
    expect(unkeyed.status).toBe(201);
    expect(unkeyed.body.id).not.toBe(first.body.id);
    expect(await pagesOf(owner.id)).toHaveLength(2);
  });

  it('answers 422 idempotency_key_reused for the same key with another body, and stores nothing', async () => {
    const key = `idem-${tag()}`;
    const first = await call(server, 'POST', '/users', { body: userBody(), headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const other = userBody();
    const res = await call(server, 'POST', '/users', { body: other, headers: { 'idempotency-key': key } });
    expectErrorShape(res, 422, 'idempotency_key_reused');
    expect(await countWithNickname(other.nickname as string)).toBe(0);
  });

  it('answers 422 idempotency_key_reused for the same key on another endpoint', async () => {
    const key = `idem-${tag()}`;
    expect((await call(server, 'POST', '/users', { body: userBody(), headers: { 'idempotency-key': key } })).status).toBe(
      201,
    );
    const name = `Config ${tag()}`;
    const res = await call(server, 'POST', '/page_configurations', {
      body: { name },
      headers: { 'idempotency-key': key },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('idempotency_key_reused');
    const configs = await call(server, 'GET', '/page_configurations?per_page=100');
    expect(configs.body.items.map((c: { name: string }) => c.name)).not.toContain(name);
  });

  it('keeps keys apart per caller', async () => {
    const key = `idem-${tag()}`;
    const config = await createPageConfiguration(server);
    const body = { name: `Mine ${tag()}`, privacy: 'public', page_configuration_id: config.id, user_id: member.user.id };
    const byAdmin = await call(server, 'POST', '/pages', { body, headers: { 'idempotency-key': key } });
    const byMember = await call(server, 'POST', '/pages', {
      as: member.creds,
      body,
      headers: { 'idempotency-key': key },
    });
    expect([byAdmin.status, byMember.status]).toEqual([201, 201]);
    expect(byMember.headers.get('idempotent-replayed')).toBeNull();
    expect(byMember.body.id).not.toBe(byAdmin.body.id);
  });

  it('acts once when retries with the same key race each other', async () => {
    const config = await createPageConfiguration(server);
    const owner = await createUser(server);
    const body = { name: `Race ${tag()}`, privacy: 'public', page_configuration_id: config.id, user_id: owner.id };
    const key = `idem-${tag()}`;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(server, 'POST', '/pages', { body, headers: { 'idempotency-key': key } })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
    expect(await pagesOf(owner.id)).toHaveLength(1);
  });

  it('acts once when racing creates of a user share a key (one 201 replayed, no 409)', async () => {
    const body = userBody();
    const key = `idem-${tag()}`;
    const results = await Promise.all(
      Array.from({ length: 4 }, () => call(server, 'POST', '/users', { body, headers: { 'idempotency-key': key } })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await countWithNickname(body.nickname as string)).toBe(1);
  });
});

describe('GET /openapi.json', () => {
  it('is served without credentials as an OpenAPI 3.1 document with the users path', async () => {
    for (const as of [null, { key: 'ak_wrong', secret: 'as_wrong' }]) {
      const res = await call(server, 'GET', '/openapi.json', { as });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.openapi).toMatch(/^3\.1\.\d+$/);
      expect(res.body.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
      const users = res.body.paths['/public-api/v1/users'];
      expect(users).toBeDefined();
      expect(Object.keys(users).sort()).toEqual(['get', 'post']);
      expect(Object.keys(users.post.requestBody.content)).toEqual(
        expect.arrayContaining(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']),
      );
      expect(inlineRefs(res.body).paths['/public-api/v1/users'].post.requestBody.content['application/json'].schema.required).toEqual(
        expect.arrayContaining(['first_name', 'last_name', 'nickname', 'email', 'password']),
      );
      expect(res.body.paths['/public-api/v1/users/{user_id}']).toHaveProperty('get');
    }
  });
});
