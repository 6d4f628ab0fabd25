import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseUrlencoded } from '../../src/server/bodies.js';
import { useApp } from '../helpers/app.js';
import { inlineRefs } from '../helpers/openapi.js';

const api = useApp();

const userBody = (extra: Record<string, unknown> = {}) => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  nickname: `ada_${Math.random().toString(16).slice(2, 10)}`,
  email: `ada-${Math.random().toString(16).slice(2, 10)}@example.org`,
  password: 'secret123',
  accept_conditions: true,
  accept_confidentiality: true,
  ...extra,
});

const countUsers = async () => (await api.call('GET', '/users?per_page=1')).body.total_items as number;

describe('text that is not UTF-8', () => {
  const send = async (contentType: string, payload: Buffer | string) => {
    const before = await countConfigs();
    const res = await api.app.inject({
      method: 'POST',
      url: '/public-api/v1/page_configurations',
      headers: { 'api-key': api.admin.key, 'api-secret': api.admin.secret, 'content-type': contentType },
      payload,
    });
    return { status: res.statusCode, body: JSON.parse(res.body), written: (await countConfigs()) - before };
  };
  const countConfigs = async () => (await api.call('GET', '/page_configurations?per_page=1')).body.total_items as number;
  const boundary = 'b0undary';
  const multipart = (value: Buffer) =>
    Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n`), value, Buffer.from(`\r\n--${boundary}--\r\n`)]);

  it('is a 400 invalid_body in JSON, forms and multipart, bytes or escapes, and nothing is written', async () => {
    const cases: [string, Buffer | string][] = [
      ['application/json', Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')])],
      ['application/x-www-form-urlencoded', Buffer.concat([Buffer.from('name=a'), Buffer.from([0xff]), Buffer.from('b')])],
      ['application/x-www-form-urlencoded', 'name=a%20%FFb'],
      ['application/x-www-form-urlencoded', 'name=%ED%A0%80'],
      ['application/x-www-form-urlencoded', 'name=100%'],
      [`multipart/form-data; boundary=${boundary}`, multipart(Buffer.from([0x61, 0xff, 0x62]))],
    ];
    for (const [type, payload] of cases) {
      const res = await send(type, payload);
      expect(res.status, `${type} ${String(payload)}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_body');
      expect(res.written).toBe(0);
    }
  });

  it('reads a name repeated throughout a form, each value kept in order, in time linear in the body', () => {
    const values = parseUrlencoded(Buffer.from(Array.from({ length: 100_000 }, (_, i) => `a=${i}`).join('&')));
    expect(values.a).toHaveLength(100_000);
    expect((values.a as string[]).slice(0, 3)).toEqual(['0', '1', '2']);
  });

  it('decodes a form as it is meant: + a space, escapes of UTF-8', async () => {
    const res = await send('application/x-www-form-urlencoded', 'name=Caf%C3%A9+%E2%9C%93');
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Café ✓');
  });
});

describe('unknown body fields', () => {
  it('are refused with 422 naming each one, and nothing is written', async () => {
    const before = await countUsers();
    const res = await api.call('POST', '/users', { body: userBody({ nick_name: 'typo', emial: 'x@y.z' }) });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.fields).toEqual([
      { field: 'nick_name', message: 'is not a field of this request' },
      { field: 'emial', message: 'is not a field of this request' },
    ]);
    expect(await countUsers()).toBe(before);
  });

  it('are named alongside the other invalid fields', async () => {
    const res = await api.call('POST', '/page_configurations', { body: { name: '', colour: 'red' } });
    expect(res.status).toBe(422);
    expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['colour', 'name']);
  });

  it('are refused in forms too, whatever the route (urlencoded, with a transformed schema)', async () => {
    const res = await api.app.inject({
      method: 'POST',
      url: '/public-api/v1/webhooks',
      headers: { 'api-key': api.admin.key, 'api-secret': api.admin.secret, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'url=https%3A%2F%2Fexample.org%2Fhook&events[]=invite.created&secret=mine',
    });
    expect(res.statusCode).toBe(422);
    expect(JSON.parse(res.body).error.fields).toEqual([{ field: 'secret', message: 'is not a field of this request' }]);
  });

  it('are refused at any depth, named by their path', async () => {
    const res = await api.call('POST', '/permission_sets', {
      body: { name: `Role ${Math.random()}`, permissions: { users: { index: true, indx: true }, postz: {} } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['permissions.postz', 'permissions.users.indx']);
  });

  it('are declared refused by the OpenAPI document for every request body', async () => {
    const doc = inlineRefs((await api.call('GET', '/openapi.json', { as: null })).body);
    let bodies = 0;
    for (const operations of Object.values(doc.paths) as Record<string, any>[])
      for (const operation of Object.values(operations)) {
        const schema = operation.requestBody?.content['application/json'].schema;
        if (!schema) continue;
        bodies += 1;
        // A body of one of several shapes (a like: of a status or of a comment) refuses unknown fields in each.
        for (const shape of schema.oneOf ?? [schema]) expect(shape.additionalProperties).toBe(false);
      }
    expect(bodies).toBeGreaterThan(5);
  });
});

describe('text', () => {
  it('refuses a lone UTF-16 surrogate in a body with 422 naming the field', async () => {
    const res = await api.call('POST', '/page_configurations', { body: '{"name":"bad \\ud800 text"}' });
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual([{ field: 'name', message: expect.stringContaining('valid Unicode') }]);
  });

  it('refuses the NUL character (which PostgreSQL cannot store) in a body, a query or a path, the same on both stores', async () => {
    const body = await api.call('POST', '/page_configurations', { body: '{"name":"bad \\u0000 text"}' });
    expect(body.status).toBe(422);
    expect(body.body.error.fields).toEqual([{ field: 'name', message: 'must not contain the NUL character (U+0000)' }]);
    const query = await api.call('GET', '/users?nickname=a%00b');
    expect(query.status).toBe(400);
    expect(query.body.error).toMatchObject({ code: 'invalid_query', message: 'nickname: must not contain the NUL character (U+0000)' });
    for (const path of ['/page_configurations/%00', '/pages/a%00', '/users/%00/notifications']) {
      const res = await api.call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('invalid_query');
    }
  });

  it('refuses a name or a nickname of nothing visible (format characters, spaces, blank letters), nothing written', async () => {
    for (const name of ['\u200b', '\u202e\u200b\u2060', '\u3164', '\u2800\u00a0\u115f', '\u034f\ufe0f\u180b']) {
      const res = await api.call('POST', '/page_configurations', { body: { name } });
      expect(res.status, JSON.stringify(name)).toBe(422);
      expect(res.body.error.fields).toEqual([{ field: 'name', message: 'must contain a visible character' }]);
    }
    const before = await countUsers();
    const user = await api.call('POST', '/users', { body: userBody({ nickname: '\u3164\u3164', first_name: '\u200b' }) });
    expect(user.status).toBe(422);
    expect(user.body.error.fields).toEqual([
      { field: 'first_name', message: 'must contain a visible character' },
      { field: 'nickname', message: 'must contain a visible character' },
    ]);
    expect(await countUsers()).toBe(before);
    // Something visible among them is enough (an emoji, a letter beside a zero-width joiner).
    for (const name of ['\u200b😀', 'a\u200db']) expect((await api.call('POST', '/page_configurations', { body: { name } })).status).toBe(201);
  });

  it("refuses a suspension's reason of nothing visible however the suspension comes: directly or through a report", async () => {
    const [reporter, spammer] = [await api.member(), await api.member()];
    const report = await api.call('POST', '/reports', {
      as: reporter.creds,
      body: { user_id: reporter.user.id, reason: 'spam', target_type: 'User', target_id: spammer.user.id },
    });
    expect(report.status, JSON.stringify(report.body)).toBe(201);
    for (const [url, body] of [
      [`/users/${spammer.user.id}/suspension`, { reason: '\u200b\u2060' }],
      [`/reports/${report.body.id}/resolve`, { action: 'suspend', reason: '\u200b\u2060' }],
    ] as const) {
      const res = await api.call('PUT', url, { body });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error.fields).toEqual([{ field: 'reason', message: 'must contain a visible character' }]);
    }
    expect((await api.call('GET', `/users/${spammer.user.id}`)).body.suspension).toBeNull();
    expect((await api.call('GET', `/reports/${report.body.id}`)).body.state).toBe('open');
  });

  it('accepts a well-formed pair written as escapes', async () => {
    const res = await api.call('POST', '/page_configurations', { body: '{"name":"ok \\ud83d\\ude00"}' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('ok 😀');
  });
});

describe('methods', () => {
  it('answers 405 with Allow for a known path asked with another method, for every route', async () => {
    const res = await api.call('PUT', '/users');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.body).toEqual({
      error: { code: 'method_not_allowed', message: expect.stringContaining('GET, HEAD, POST'), request_id: res.headers['x-request-id'] },
    });
    const withId = await api.call('POST', '/pages/0123456789abcdef0123456789abcdef');
    expect(withId.status).toBe(405);
    expect(withId.headers.allow).toBe('GET, HEAD');
    expect((await api.call('PATCH', '/webhooks/abc')).headers.allow).toBe('DELETE, GET, HEAD');
  });

  it('still answers 404 route_not_found for a path no route has', async () => {
    const res = await api.call('GET', '/no_such_thing');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_not_found');
  });
});

describe('errors before routing', () => {
  it('answers a path segment over 1,024 characters with 414 uri_too_long', async () => {
    const res = await api.call('GET', `/users/${'x'.repeat(1100)}`);
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ error: { code: 'uri_too_long', message: expect.any(String), request_id: res.headers['x-request-id'] } });
    expect(res.body.error.message.length).toBeLessThan(100);
  });

  it('answers a compressed body with 415 unsupported_encoding', async () => {
    const res = await api.call('POST', '/page_configurations', {
      body: '{"name":"x"}',
      headers: { 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_encoding');
  });

  it('names the limit that six files or 600 fields break, not the byte limit', async () => {
    const boundary = 'xyz';
    const part = (name: string, file = false) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${name}.txt"` : ''}\r\n\r\nv\r\n`;
    for (const parts of [Array.from({ length: 6 }, (_, i) => part(`f${i}`, true)), Array.from({ length: 600 }, (_, i) => part(`k${i}`))]) {
      const payload = `${parts.join('')}--${boundary}--\r\n`;
      const res = await api.app.inject({
        method: 'POST',
        url: '/public-api/v1/page_configurations',
        headers: {
          'api-key': api.admin.key,
          'api-secret': api.admin.secret,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(Buffer.byteLength(payload)),
        },
        payload,
      });
      expect(res.statusCode).toBe(413);
      const error = JSON.parse(res.body).error;
      expect(error.code).toBe('too_many_parts');
      expect(error.message).not.toContain('1048576');
    }
  });

  describe('on the wire', () => {
    /** Sends raw bytes to the listening app and returns everything it answers until it closes. */
    async function raw(text: string): Promise<{ status: number; head: string; body: any }> {
      const port = (api.app.server.address() as { port: number }).port;
      const answer = await new Promise<string>((resolve, reject) => {
        let out = '';
        const socket = connect(port, '127.0.0.1', () => socket.end(text));
        socket.on('data', (chunk) => (out += chunk));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
      const [head, ...rest] = answer.split('\r\n\r\n');
      return { status: Number(head!.split(' ')[1]), head: head!, body: JSON.parse(rest.join('\r\n\r\n')) };
    }

    it('answers a malformed request line, Content-Length with Transfer-Encoding, huge headers, CONNECT and a transfer coding in the contract shape', async () => {
      if (!api.app.server.listening) await api.app.listen({ port: 0, host: '127.0.0.1' });
      const cases: [string, number, string][] = [
        ['GARBAGE\r\n\r\n', 400, 'malformed_request'],
        ['POST /public-api/v1/users HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'malformed_request'],
        [`GET /public-api/v1/users?${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'headers_too_large'],
        [`GET /public-api/v1/users HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`, 431, 'headers_too_large'],
        // Node hands CONNECT to a 'connect' listener, not to the app: without one it dropped the connection, unanswered.
        ['CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', 405, 'method_not_allowed'],
        // Node takes off the chunking only: the body would be read compressed (or, sent plain, taken for what it is not).
        [
          `POST /public-api/v1/page_configurations HTTP/1.1\r\nHost: x\r\nApi-Key: ${api.admin.key}\r\nApi-Secret: ${api.admin.secret}\r\n` +
            'Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\nc\r\n{"name":"z"}\r\n0\r\n\r\n',
          415,
          'unsupported_encoding',
        ],
      ];
      for (const [text, status, code] of cases) {
        const res = await raw(text);
        expect(res.status, text.slice(0, 40)).toBe(status);
        expect(res.body).toEqual({ error: { code, message: expect.any(String), request_id: expect.stringMatching(/^[0-9a-f]{32}$/) } });
        // A 405 names the methods the server takes (RFC 9110, 15.5.6), as the app's own 405s do.
        if (status === 405) expect(res.head).toMatch(/\r\nallow: GET, HEAD, POST, PUT, DELETE\r\n/);
      }
    });
  });
});
