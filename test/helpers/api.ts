import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { PREFIX, type Credentials, type RunningServer } from './server.js';
import { issueApiKey } from '../../src/domain/api-keys.js';
import { openStore } from '../../src/store/open.js';
import { onPostgres, TEST_SECRET_KEY } from './store-target.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** What every id and timestamp the API answers looks like. */
export const HEX_ID = /^[0-9a-f]{32}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type BodyKind = 'json' | 'form' | 'multipart';

/** One HTTP call to the API with a key pair; the body is sent as JSON, urlencoded or multipart. */
export async function call<T = any>(
  server: RunningServer,
  method: string,
  path: string,
  options: { as?: Credentials | null; body?: unknown; kind?: BodyKind; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const creds = options.as === undefined ? server.admin : options.as;
  const headers: Record<string, string> = { ...options.headers };
  if (creds) {
    headers['api-key'] = creds.key;
    headers['api-secret'] = creds.secret;
  }
  let body: string | URLSearchParams | FormData | undefined;
  const kind = options.kind ?? 'json';
  if (options.body !== undefined) {
    if (kind === 'json') {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    } else if (kind === 'form') {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(options.body as Record<string, unknown>))
        for (const item of Array.isArray(v) ? v : [v]) form.append(Array.isArray(v) ? `${k}[]` : k, String(item));
      body = form;
    } else {
      const form = new FormData();
      for (const [k, v] of Object.entries(options.body as Record<string, unknown>))
        for (const item of Array.isArray(v) ? v : [v]) form.append(k, String(item));
      body = form;
    }
  }
  const response = await fetch(server.url + PREFIX + path, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const unique = () => randomBytes(4).toString('hex');

/** A valid user body with unique email and nickname; override any field. */
export function userBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const tag = unique();
  return {
    first_name: 'Test',
    last_name: `User ${tag}`,
    nickname: `user_${tag}`,
    email: `user-${tag}@example.org`,
    password: 'secret123',
    accept_conditions: true,
    accept_confidentiality: true,
    ...overrides,
  };
}

export async function createUser(server: RunningServer, overrides: Record<string, unknown> = {}) {
  const res = await call(server, 'POST', '/users', { body: userBody(overrides) });
  if (res.status !== 201) throw new Error(`createUser: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; nickname: string; email: string; slug: string; [k: string]: unknown };
}

/** A user with their own API key, issued straight on the server's store (see createKeyFor). */
export async function createUserWithKey(server: RunningServer, overrides: Record<string, unknown> = {}) {
  const user = await createUser(server, overrides);
  return { user, creds: await createKeyFor(server, user.id) };
}

/**
 * A key pair for the user (the bootstrap administrator without one), issued on the server's store by the code
 * `agora admin create-key` runs (issueApiKey: a scrypt-hashed secret and its audit entry), in this process: a
 * CLI process per key (Node's start-up, the store's opening) was most of the time of the suites that make many
 * Members. `agora admin create-key` itself is tested as the binary in test/api/auth.test.ts and
 * test/cli/admin-keys.test.ts.
 */
export async function createKeyFor(server: RunningServer, userId?: string): Promise<Credentials> {
  const store = await openStore(server.db, onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
  try {
    const issued = await issueApiKey({ store, clock: () => new Date() }, userId);
    return { key: issued.api_key, secret: issued.api_secret };
  } finally {
    await store.close();
  }
}

export async function createPageConfiguration(server: RunningServer, name = `Config ${unique()}`) {
  const res = await call(server, 'POST', '/page_configurations', { body: { name } });
  if (res.status !== 201) throw new Error(`createPageConfiguration: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string };
}

export async function createPage(
  server: RunningServer,
  fields: { user_id: string; page_configuration_id: string; privacy?: string; name?: string },
  as?: Credentials,
) {
  const res = await call(server, 'POST', '/pages', {
    as,
    body: { name: `Page ${unique()}`, privacy: 'public', ...fields },
  });
  if (res.status !== 201) throw new Error(`createPage: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; slug: string; privacy: string; user_id: string; [k: string]: unknown };
}

/**
 * A public page (`name`) created by `owner`, followed by `poster`, whose `post` writes a status in it and answers its
 * id; and `reader`, a third user with a key (who reports): the moderation tests' community.
 */
export async function postingPage(server: RunningServer, name: string) {
  const [owner, poster, reader] = [await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server)];
  const config = await createPageConfiguration(server);
  const page = await createPage(server, { name, privacy: 'public', page_configuration_id: config.id, user_id: owner.user.id }, owner.creds);
  await call(server, 'POST', '/follows', { body: { followable_type: 'Page', followable_id: page.id, user_id: poster.user.id } });
  const post = async (content: string) =>
    (await call(server, 'POST', '/statuses', { as: poster.creds, body: { user_id: poster.user.id, page_id: page.id, content } })).body.id as string;
  return { owner, poster, reader, config, page, post };
}

/** In a `postingPage`, a status and a comment (on another status) with these words, both removed by the page's owner. */
export async function removedByOwner(server: RunningServer, name: string, words: { status: string; comment: string }) {
  const posting = await postingPage(server, name);
  const { owner, poster, post } = posting;
  const status = await post(words.status);
  const comment = (await call(server, 'POST', '/comments', { as: poster.creds, body: { user_id: poster.user.id, status_id: await post('stays'), content: words.comment } })).body.id as string;
  expect((await call(server, 'DELETE', `/statuses/${status}`, { as: owner.creds })).status).toBe(204);
  expect((await call(server, 'DELETE', `/comments/${comment}`, { as: owner.creds })).status).toBe(204);
  return { ...posting, status, comment };
}

/** Two users reported by a third, the second (dave) suspended already ("earlier"): a run of suspensions to stop halfway. */
export async function twoUserReports(server: RunningServer) {
  const [carol, dave, reader] = [await createUserWithKey(server), await createUserWithKey(server), await createUserWithKey(server)];
  const onUser = async (id: string) =>
    (await call(server, 'POST', '/reports', { as: reader.creds, body: { user_id: reader.user.id, target_type: 'User', target_id: id, reason: 'spam' } })).body.id as string;
  expect((await call(server, 'PUT', `/users/${dave.user.id}/suspension`, { body: { reason: 'earlier' } })).status).toBe(200);
  const [first, second] = [await onUser(carol.user.id), await onUser(dave.user.id)];
  return { carol, dave, first, second };
}
