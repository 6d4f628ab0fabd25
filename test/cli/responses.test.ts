import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { expectedAnswer, RESPONSES } from '../../src/client/responses.js';
import { SchemaComponents } from '../../src/server/openapi/schemas.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { removeDir } from '../helpers/server.js';

/**
 * Every answer the client reads is checked against the shared zod schema of its route (src/client/responses.ts).
 * The table is checked here against the server's own OpenAPI document, route by route, so that it cannot drift;
 * and a server answering something else is reported in one clear line, not a crash.
 */
describe("the client's table of answers", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dir);
  });

  it("has the server's schema for every route of the OpenAPI document, and no route the server lacks", async () => {
    const doc = (await t.call('GET', '/openapi.json', { as: null })).body as {
      components: { schemas: Record<string, unknown> };
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    };
    const served: string[] = [];
    for (const [fullPath, operations] of Object.entries(doc.paths))
      for (const [method, operation] of Object.entries(operations)) {
        const path = fullPath.replace('/public-api/v1', '');
        const [status, answer] = Object.entries(operation.responses).find(([code]) => code !== 'default')!;
        const content = answer.content;
        if (content?.['text/event-stream'] || (path === '/users/export' && method === 'get')) continue; // streams, not JSON
        served.push(`${method.toUpperCase()} ${path}`);
        const sample = path.replace(/\{[a-z_]+\}/g, '0123456789abcdef0123456789abcdef');
        const expected = await expectedAnswer(method.toUpperCase() as 'GET', sample);
        const where = `${method.toUpperCase()} ${path} (${status})`;
        const documented = (content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref;
        if (status === '204') expect(expected, where).toBe('none');
        else if (!documented) expect(expected, where).toBe('any');
        else {
          // The document names each answer's schema (its .meta id), and says of it what the client's schema says.
          const components = new SchemaComponents();
          expect(components.convert(expected as z.ZodType, 'output'), where).toEqual({ $ref: documented });
          for (const [id, schema] of Object.entries(components.schemas)) expect(schema, `${where}: ${id}`).toEqual(doc.components.schemas[id]);
        }
      }
    const known = RESPONSES.map(([method, path]) => `${method} ${path.replace(/:([a-z_]+)/g, '{$1}')}`);
    expect(known.sort()).toEqual(served.sort());
  });
});

describe('an answer that is not the API', () => {
  let server: Server;
  let base: string;
  let home: string;
  const answers: Record<string, [number, string, string?]> = {
    '/public-api/v1/users/export': [200, '<html>Sign in to the Wi-Fi</html>', 'text/html'],
    '/public-api/v1/pages': [200, JSON.stringify({ items: [{ id: 7, name: 'Garden' }], total_items: 'one' })],
    '/public-api/v1/me': [200, '<html>a captive portal</html>'],
    '/public-api/v1/users/0123456789abcdef0123456789abcdef': [200, ''],
  };
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'agora-responses-'));
    server = createServer((req, res) => {
      const [status, body, type] = answers[new URL(req.url!, 'http://x').pathname] ?? [404, '{"error":{"code":"not_found","message":"Nothing"}}'];
      res.writeHead(status, { 'content-type': type ?? 'application/json' }).end(body);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((ok) => server.close(() => ok()));
    removeDir(home);
  });
  const env = () => ({ AGORA_URL: base, AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_x' });

  it('names what differs from the schema, in one line, exit 1', async () => {
    const result = await runCli(['pages', 'list'], { home, env: env() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: The server at ${base} answered GET /pages with a body that is not the API's ` +
        '(items.0.id: Invalid input: expected string, received number; items.0.slug: Invalid input: expected string, received undefined; ' +
        'items.0.description: Invalid input: expected string, received undefined; and 6 more) (invalid_response, HTTP 200)\n',
    );
  });

  it('says when the answer is not JSON at all, or empty where a record was due; --json gives the error body', async () => {
    const html = await runCli(['whoami'], { home, env: env() });
    expect(html.code).toBe(1);
    expect(html.stderr).toBe(
      `error: The server at ${base} answered GET /me with something that is not JSON: "<html>a captive portal</html>" (invalid_response, HTTP 200)\n`,
    );
    const empty = await runCli(['users', 'get', '0123456789abcdef0123456789abcdef', '--json'], { home, env: env() });
    expect(empty.code).toBe(1);
    expect(JSON.parse(empty.stderr)).toEqual({
      error: { code: 'invalid_response', message: 'answer to GET /users/0123456789abcdef0123456789abcdef: an empty body' },
    });
  });

  it('does not save a page that is not an export as one', async () => {
    const result = await runCli(['users', 'export', '--output', join(home, 'users.ndjson')], { home, env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: The server at ${base} answered GET /users/export with text/html where application/x-ndjson was due (invalid_response, HTTP 200)\n`,
    );
    expect(existsSync(join(home, 'users.ndjson'))).toBe(false);
  });

  it('hands on the JSON exactly as sent when it matches (fields the schema does not name included)', async () => {
    const page = {
      id: 'a'.repeat(32), name: 'Garden', slug: 'garden', description: null, privacy: 'public',
      page_configuration_id: 'b'.repeat(32), user_id: 'c'.repeat(32), created_at: '2026-11-20T10:00:00.000Z',
      updated_at: '2026-11-20T10:00:00.000Z', extra: { kept: true },
    };
    answers['/public-api/v1/pages'] = [200, JSON.stringify({ items: [page], total_items: 1 })];
    const client = new ApiClient({ baseUrl: base });
    try {
      expect(await client.get('/pages')).toEqual({ items: [page], total_items: 1 });
    } finally {
      await client.close();
    }
  });
});
