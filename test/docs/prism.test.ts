import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/domain/api-keys.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startPrism, violationsOf, type PrismSession } from '../helpers/prism.js';
import { removeDir } from '../helpers/server.js';
import { NO_ID, walk } from './prism-session.js';

/**
 * Issue 32's last acceptance item: Prism in proxy mode with `--errors`, in front of the real app listening on a
 * temporary store (SQLite; PostgreSQL under `npm run test:pg`), finds no violation in a session that calls every operation of the document, with a success and
 * with an error each documents. A new operation without a call in the session fails the coverage check.
 */
let api: TestApp;
let url: string;
let doc: any;
/** The check's Prism; one with a document made wrong on purpose; one without --errors, which forwards wrong requests. */
let prism: PrismSession;
let strict: PrismSession;
let forwarding: PrismSession;
/** Resolved when the server starts answering a live stream (its 200 and first line are on their way). */
let streamOpened: Promise<void>;

beforeAll(async () => {
  api = await startApp({
    rateLimit: false,
    webhooks: { allowPrivate: true },
    // One live stream a user: a second is refused with 429 and Retry-After, which the session checks too.
    live: { perUser: 1 },
    // Each operation is first called with a wrong secret: more failed authentications than a minute allows.
    auth: { failuresPerAddress: 10_000, failuresPerKey: 10_000 },
    // The stream route writes its head itself (it hijacks the reply): watching that write is how the session knows
    // the server holds the stream, before it asks for a second one and then closes the server.
    beforeReady: (app) => {
      let opened: () => void;
      streamOpened = new Promise((ok) => (opened = ok));
      app.addHook('onRequest', async (request, reply) => {
        if (!request.url.endsWith('/notifications/stream')) return;
        const raw = reply.raw;
        const writeHead = raw.writeHead;
        raw.writeHead = function (this: typeof raw, ...args: Parameters<typeof writeHead>) {
          if (args[0] === 200) opened();
          return writeHead.apply(this, args);
        } as typeof writeHead;
      });
    },
  });
  url = await api.app.listen({ port: 0, host: '127.0.0.1' });
  doc = await (await fetch(`${url}/public-api/v1/openapi.json`)).json();
  const tampered = structuredClone(doc);
  tampered.components.schemas.Me.required.push('favourite_colour');
  const dir = (name: string) => {
    mkdirSync(join(api.dir, name));
    return join(api.dir, name);
  };
  // Started together: each takes a few seconds to read the document.
  [prism, strict, forwarding] = await Promise.all([
    startPrism(api.dir, url, doc, api.admin),
    startPrism(dir('tampered'), url, tampered, api.admin),
    startPrism(dir('forwarding'), url, doc, api.admin, false),
  ]);
});

afterAll(async () => {
  await Promise.all([prism?.close(), strict?.close(), forwarding?.close()]);
  await api?.close();
  if (api) removeDir(api.dir);
});

describe('Prism proxy --errors in front of agora', () => {
  it('reports an answer the document does not describe (the check can fail)', async () => {
    await strict.call('GET', '/me', 200);
    expect(strict.problems).toEqual([expect.stringMatching(/^get_me GET \/me: Prism reports .*favourite_colour/)]);
  });

  it('refuses what agora refuses, and agora refuses it as the document says: a request of each kind made wrong', async () => {
    // Without --errors Prism forwards a request it finds wrong (listing why), so agora's 400 and 422 are checked too.
    const requests: { id: string; method: string; path: string; body?: unknown; headers?: Record<string, string>; refused: number[] }[] = [];
    for (const { id, method, template } of forwarding.operations) {
      const spec = doc.paths[template][method.toLowerCase()];
      const parameters = (spec.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p));
      const query = parameters.filter((p: any) => p.in === 'query');
      const enumerated = query.find((p: any) => p.schema?.enum);
      const path = template.slice('/public-api/v1'.length).replace(/\{[^}]+\}/g, NO_ID);
      const wrong = { id, method, refused: [400, 422] };
      if (spec.requestBody) {
        // A body of a type the operation does not take, and one with a field it does not know.
        requests.push({ ...wrong, path, body: 'plain words', headers: { 'content-type': 'text/plain' }, refused: [415] });
        requests.push({ ...wrong, path, body: { field_of_no_operation: 1 } });
      } else if (query.some((p: any) => p.required)) requests.push({ ...wrong, path });
      else if (query.some((p: any) => p.name === 'per_page')) requests.push({ ...wrong, path: `${path}?per_page=0` });
      else if (enumerated) requests.push({ ...wrong, path: `${path}?${enumerated.name}=none_of_these` });
    }
    const problems: string[] = [];
    for (const { id, method, path, body, headers, refused } of requests) {
      const answer = await forwarding.send(method, path, { body, headers });
      const found = violationsOf(answer);
      const where = `${id} ${method} ${path} ${answer.status}`;
      if (!found.some((v) => v.location[0] === 'request')) problems.push(`${where}: Prism found nothing wrong in the request`);
      for (const v of found.filter((v) => v.location[0] !== 'request')) problems.push(`${where}: ${v.location.join('.')} ${v.message}`);
      const documented = doc.paths[forwarding.operations.find((o) => o.id === id)!.template][method.toLowerCase()].responses;
      if (!refused.includes(answer.status) || !documented[answer.status]) problems.push(`${where}: ${answer.text}`);
    }
    expect(problems).toEqual([]);
    expect(requests.length).toBeGreaterThanOrEqual(65);
  });

  it('reports no violation in a session that calls every operation, errors included', async () => {
    const { ada } = await walk(prism, {
      adminId: api.admin.id,
      member: async (nickname) => {
        const user = (await prism.call('GET', `/users?nickname=${nickname}`, 200)).body.items?.[0];
        const made = user ?? (await api.member({ nickname })).user;
        const key = await issueApiKey(api.deps, made.id);
        return { id: made.id, creds: { key: key.api_key, secret: key.api_secret } };
      },
    });
    // A live stream never ends by itself, and Prism checks an answer once it has all of it: the stream is ended
    // by closing the server (which ends its streams), then checked. So it comes last.
    const stream = `/users/${ada.id}/notifications/stream`;
    const streaming = prism.call('GET', stream, 200, { as: ada.creds });
    await streamOpened;
    expect((await prism.call('GET', stream, 429, { as: ada.creds })).headers.get('retry-after')).toBe('10');
    await api.app.close();
    expect((await streaming).text).toMatch(/^retry: 2000\n/);
    expect(prism.problems).toEqual([]);

    const uncovered = prism.operations
      .map((o) => o.id)
      .filter((id) => {
        const statuses = [...(prism.seen.get(id) ?? [])];
        const error = id === 'get_openapi_document' || statuses.some((s) => s >= 400); // the document has no error to answer
        return !statuses.some((s) => s < 300) || !error;
      });
    expect(uncovered).toEqual([]);
    expect(prism.operations.length).toBeGreaterThanOrEqual(72);
  });
});
