import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { removeDir } from '../helpers/server.js';

/**
 * A client generated from the served document (openapi-typescript types, openapi-fetch calls) compiles under
 * strict and exactOptionalPropertyTypes, and walks a realistic session against the real server over HTTP.
 */
const DIR = resolve(__dirname, '../typed-client');
let api: TestApp;
let baseUrl: string;

beforeAll(async () => {
  api = await startApp({ rateLimit: false });
  baseUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
  const doc = (await (await fetch(`${baseUrl}/public-api/v1/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
  mkdirSync(join(DIR, 'generated'), { recursive: true });
  writeFileSync(join(DIR, 'generated', 'agora-api.ts'), astToString(await openapiTS(doc)));
});

afterAll(async () => {
  await api?.close();
  if (api) removeDir(api.dir);
});

describe('a client generated from the OpenAPI document', () => {
  it('type-checks a session under strict and exactOptionalPropertyTypes', async () => {
    const tsc = resolve(__dirname, '../../node_modules/.bin/tsc');
    const result = await promisify(execFile)(tsc, ['-p', join(DIR, 'tsconfig.json')]).catch((error: { stdout: string }) => error);
    expect(result.stdout).toBe('');
  });

  it('walks the session against a real server: user, private page, access, content, notifications, event, a Link walk', async () => {
    // Loaded by path, not imported: it imports the types generated above, which a fresh checkout does not have
    // when the project's own type-check runs (that folder is type-checked by the test above, under its own settings).
    const sessionFile = join(DIR, 'session.ts');
    const { walkSession } = (await import(sessionFile)) as { walkSession(url: string, admin: TestApp['admin']): Promise<any> };
    const session = await walkSession(baseUrl, api.admin);
    expect(session.takenCode).toBe('email_taken');
    expect(session.accepted).toEqual({ state: 'accepted', is_validate: true });
    expect(session.like).toEqual({ comment_id: expect.any(String), status_id: null });
    expect(session.notificationTypes).toEqual(expect.arrayContaining(['like', 'status', 'page_access_request']));
    expect(session.totalHeader).toBe(session.notificationTypes.length);
    expect(session.marked).toBe(session.notificationTypes.length);
    expect(session.event).toEqual({ places_left: 1, tickets: [{ name: 'Standard', price: '12.50', currency: 'EUR' }], answer: 'yes' });
    // Ada (the creator) and Grace (accepted): two members, one a page.
    expect(session.walk.total).toBe(2);
    expect(session.walk.users).toHaveLength(2);
    expect(new Set(session.walk.users).size).toBe(2);
  });
});
