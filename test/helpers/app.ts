import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { ensureBootstrapAdmin, issueApiKey } from '../../src/domain/api-keys.js';
import type { Deps } from '../../src/domain/context.js';
import { hashSecret } from '../../src/domain/secrets.js';
import { createApp, type AppOptions } from '../../src/server/app.js';
import { newId } from '../../src/shared/ids.js';
import { SYSTEM_ROLES } from '../../src/store/default-roles.js';
import { openStore } from '../../src/store/open.js';
import type { OpenStoreOptions } from '../../src/store/store.js';
import type { Store } from '../../src/store/store.js';
import { removeDir, PREFIX, type Credentials } from './server.js';
import { onPostgres, storeTargetFor, TEST_SECRET_KEY } from './store-target.js';

/** A clock the test sets and moves: the app's "now", so that no test sleeps. */
export interface TestClock {
  (): Date;
  set(iso: string): void;
  advance(ms: number): void;
}

export function testClock(start = '2026-11-20T10:00:00.000Z'): TestClock {
  let now = Date.parse(start);
  const clock = (() => new Date(now)) as TestClock;
  clock.set = (iso) => (now = Date.parse(iso));
  clock.advance = (ms) => (now += ms);
  return clock;
}

export interface Answer<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  deps: Deps;
  clock: TestClock;
  dir: string;
  /** The store: a SQLite file in `dir`, or with AGORA_TEST_DB a postgres:// URL (a schema of its own). */
  file: string;
  admin: Credentials & { id: string };
  /** One request through `inject`, as the Admin unless `as` says otherwise (`null`: no credentials). */
  call<T = any>(
    method: string,
    path: string,
    options?: { as?: Credentials | null; body?: unknown; headers?: Record<string, string>; remoteAddress?: string },
  ): Promise<Answer<T>>;
  /**
   * One request that must succeed (status under 300, else the test fails showing the answer): its body. As `as`
   * (a user with their key), else as the Admin.
   */
  ok<T = any>(method: string, path: string, as?: { creds: Credentials }, body?: unknown): Promise<T>;
  /** A Member with a key of their own, made through the API. */
  member(overrides?: Record<string, unknown>): Promise<{ user: { id: string; nickname: string; slug: string }; creds: Credentials }>;
  close(): Promise<void>;
}

/**
 * The real app on a real store answering through `inject`: a SQLite file in a temp folder, or with
 * AGORA_TEST_DB a PostgreSQL schema of its own (test/helpers/store-target.ts).
 */
export async function startApp(
  options: Partial<Omit<AppOptions, 'store'>> & {
    dir?: string;
    storeOptions?: OpenStoreOptions;
    /** Routes of the test's own, added to the real app before it is ready (a route that fails as no route of ours can). */
    beforeReady?: (app: FastifyInstance) => void;
  } = {},
): Promise<TestApp> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'agora-app-'));
  const file = await storeTargetFor(dir);
  const store = await openStore(file, onPostgres ? { secretKey: TEST_SECRET_KEY, ...options.storeOptions } : options.storeOptions);
  const clock = (options.clock as TestClock | undefined) ?? testClock();
  const deps: Deps = { store, clock };
  const adminId = await ensureBootstrapAdmin(deps);
  const key = await issueApiKey(deps, adminId);
  const { storeOptions: _storeOptions, beforeReady, ...appOptions } = options;
  const app = await createApp({ ...appOptions, store, clock });
  beforeReady?.(app);
  await app.ready();
  const admin = { id: adminId, key: key.api_key, secret: key.api_secret };

  const call: TestApp['call'] = async (method, path, callOptions = {}) => {
    const creds = callOptions.as === undefined ? admin : callOptions.as;
    const headers: Record<string, string> = { ...callOptions.headers };
    if (creds) {
      headers['api-key'] = creds.key;
      headers['api-secret'] = creds.secret;
    }
    let payload: string | undefined;
    if (callOptions.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof callOptions.body === 'string' ? callOptions.body : JSON.stringify(callOptions.body);
    }
    const res = await app.inject({ method: method as 'GET', url: PREFIX + path, headers, payload, remoteAddress: callOptions.remoteAddress });
    return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined };
  };

  const ok: TestApp['ok'] = async (method, path, as, body) => {
    const res = await call(method, path, { as: as?.creds, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };

  const member: TestApp['member'] = async (overrides = {}) => {
    const tag = randomBytes(4).toString('hex');
    const res = await call('POST', '/users', {
      body: {
        first_name: 'Test',
        last_name: `Member ${tag}`,
        nickname: `member_${tag}`,
        email: `member-${tag}@example.org`,
        password: 'secret123',
        accept_conditions: true,
        accept_confidentiality: true,
        ...overrides,
      },
    });
    if (res.status !== 201) throw new Error(`member: ${res.status} ${JSON.stringify(res.body)}`);
    const issued = await issueApiKey(deps, res.body.id);
    return { user: res.body, creds: { key: issued.api_key, secret: issued.api_secret } };
  };

  return {
    app,
    store,
    deps,
    clock,
    dir,
    file,
    admin,
    call,
    ok,
    member,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/** One app for the whole test file, closed and removed after it. */
export function useApp(options: Parameters<typeof startApp>[0] = {}): TestApp {
  const holder = {} as TestApp;
  beforeAll(async () => {
    Object.assign(holder, await startApp(options));
  });
  afterAll(async () => {
    await holder.close();
    removeDir(holder.dir);
  });
  return holder;
}

/**
 * Many Members at once, written straight into the store (one transaction, one password hash for all):
 * for audiences of thousands, where creating each through the API would cost a scrypt apiece.
 */
export async function seedMembers(store: Store, count: number, now = new Date().toISOString()): Promise<string[]> {
  const hash = await hashSecret('seeded-password-1');
  const members = await store.permissionSets.getBySystemKey(SYSTEM_ROLES.members);
  const ids: string[] = [];
  await store.transaction(async (tx) => {
    for (let i = 0; i < count; i++) {
      const id = newId();
      const nickname = `seeded_${id}`;
      ids.push(id);
      await tx.users.insert({
        id,
        first_name: 'Seeded',
        last_name: `Member ${i}`,
        nickname,
        email: `${nickname}@example.org`,
        password_hash: hash,
        permission_set_id: members!.id,
        slug: nickname,
        conditions_accepted_at: now,
        confidentiality_accepted_at: now,
        created_at: now,
        updated_at: now,
      });
    }
  });
  return ids;
}

/**
 * A page written straight into the store, with the id given (its place in id order); `store` may be a
 * transaction's, to write it inside that transaction.
 */
export function insertPage(
  store: Store,
  page: { id: string; config: string; owner: string; privacy?: 'public' | 'private' | 'secret' },
): Promise<void> {
  const now = new Date().toISOString();
  return store.pages.insert({
    id: page.id,
    name: `Page ${page.id}`,
    slug: `page-${page.id}`,
    description: null,
    privacy: page.privacy ?? 'public',
    page_configuration_id: page.config,
    user_id: page.owner,
    created_at: now,
    updated_at: now,
  });
}

/** Makes users follow a page (or a user), straight into the store. */
export async function seedFollows(store: Store, userIds: string[], type: 'Page' | 'User', targetId: string, now: string) {
  await store.transaction(async (tx) => {
    for (const userId of userIds)
      await tx.follows.insertIfAbsent({ id: newId(), user_id: userId, followable_type: type, followable_id: targetId, created_at: now });
  });
}

/**
 * A made-up follow of `subjectId`'s, notified to `recipients` straight into the store (in `tx`, or on its own):
 * its content, then one insert of every recipient's notification. Answers the content's id.
 */
export async function notifyMadeUp(
  tx: Store,
  subjectId: string,
  recipients: { userId: string; id: string }[],
  subjectName = 'Someone',
): Promise<string> {
  const contentId = newId();
  const now = new Date().toISOString();
  await tx.notifications.insertContent({
    id: contentId, notification_type: 'follow', action_name: 'followed', subject_type: 'User', subject_id: subjectId,
    subject_slug: null, subject_name: subjectName, target_type: 'User', target_id: subjectId, target_slug: null,
    target_name: null, final_target_type: 'User', final_target_id: subjectId, final_target_slug: null,
    final_target_name: 'Profile', link_type: 'User', link_id: subjectId, link_slug: null, picture_url: null,
    comment_info: '{}', created_at: now,
  });
  await tx.notifications.insertFor(contentId, recipients, now);
  return contentId;
}
