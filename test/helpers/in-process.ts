import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { issueApiKey } from '../../src/domain/api-keys.js';
import { createApp, type AppOptions } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { removeDir, type Credentials } from './server.js';

export interface InProcessApp {
  app: FastifyInstance;
  store: Store;
  dir: string;
  db: string;
  admin: Credentials;
  /** `app.inject` under the API prefix with a key pair (the admin's unless `as`; null for none). */
  call(
    method: string,
    path: string,
    options?: { as?: Credentials | null; body?: unknown; headers?: Record<string, string>; remoteAddress?: string },
  ): Promise<{ status: number; headers: Record<string, unknown>; body: any }>;
  keyFor(userId?: string): Promise<Credentials>;
}

/** `createApp` on a real store in a temp file, for in-process tests (fast: no process, no port). */
export async function startApp(options: Partial<AppOptions> = {}): Promise<InProcessApp> {
  const dir = mkdtempSync(join(tmpdir(), 'agora-app-'));
  const db = join(dir, 'agora.db');
  const store = await openSqliteStore(db);
  const app = await createApp({ ...options, store });
  await app.ready();
  const keyFor = async (userId?: string) => {
    const issued = await issueApiKey({ store, clock: () => new Date() }, userId);
    return { key: issued.api_key, secret: issued.api_secret };
  };
  const admin = await keyFor();
  return {
    app,
    store,
    dir,
    db,
    admin,
    keyFor,
    async call(method, path, { as, body, headers = {}, remoteAddress } = {}) {
      const creds = as === undefined ? admin : as;
      const inject: InjectOptions = {
        method: method as InjectOptions['method'],
        url: `/public-api/v1${path}`,
        headers: { ...(creds ? { 'api-key': creds.key, 'api-secret': creds.secret } : {}), ...headers },
        remoteAddress,
      };
      if (body !== undefined) {
        inject.payload = typeof body === 'string' ? body : JSON.stringify(body);
        inject.headers = { 'content-type': 'application/json', ...inject.headers };
      }
      const res = await app.inject(inject);
      return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined };
    },
  };
}

/** One in-process app for the whole test file, closed and removed after. */
export function useApp(options: Partial<AppOptions> = {}): InProcessApp {
  const holder = {} as InProcessApp;
  beforeAll(async () => {
    Object.assign(holder, await startApp(options));
  });
  afterAll(async () => {
    await holder.app.close();
    await holder.store.close();
    removeDir(holder.dir);
  });
  return holder;
}
