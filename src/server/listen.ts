import { ensureApiKey, issueApiKey } from '../domain/api-keys.js';
import type { Deps } from '../domain/context.js';
import { seedDemo } from '../domain/demo.js';
import { openSqliteStore } from '../store/sqlite.js';
import { createApp } from './app.js';
import { rateLimitFromEnv } from './rate-limit.js';

export interface ServeOptions {
  host: string;
  port: number;
  db: string;
  demo?: boolean;
  bootstrapKey?: string;
  bootstrapSecret?: string;
  log?: boolean;
  /** Where the server's own lines go (stdout). */
  print: (line: string) => void;
  /** Where `--log` lines go: JSON lines, or lines a person reads on a terminal. */
  logStream?: { write(line: string): void };
}

/**
 * Runs the API until SIGINT or SIGTERM, then stops accepting, lets in-flight requests finish, closes the
 * store and resolves.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const store = await openSqliteStore(options.db);
  const deps: Deps = { store, clock: () => new Date() };
  if (options.bootstrapKey || options.bootstrapSecret) {
    if (!options.bootstrapKey || !options.bootstrapSecret)
      throw new Error('AGORA_BOOTSTRAP_API_KEY and AGORA_BOOTSTRAP_API_SECRET go together');
    await ensureApiKey(deps, options.bootstrapKey, options.bootstrapSecret);
  }
  let lastKey: { api_key: string; api_secret: string } | undefined;
  if (options.demo) {
    const seeded = await seedDemo(deps);
    const key = await issueApiKey(deps);
    lastKey = key;
    options.print(seeded ? 'demo community seeded' : 'demo community already present');
    options.print(`demo administrator key: api_key=${key.api_key} api_secret=${key.api_secret}`);
  }
  const demoKey = options.demo ? lastKey : undefined;
  const app = await createApp({
    store,
    logger: options.log ?? false,
    logStream: options.logStream,
    webhooks: webhookSettingsFromEnv(process.env),
    rateLimit: rateLimitFromEnv(process.env),
  });
  const address = await app.listen({ host: options.host, port: options.port });
  // Handlers go in before the `listening on` line: a signal sent as soon as it is read still stops cleanly.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const url = new URL(address);
  const base = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${url.port}`;
  options.print(`listening on ${base}`);
  if (demoKey) options.print(`log in with: agora login --url ${base} --api-key ${demoKey.api_key} --api-secret ${demoKey.api_secret}`);
  await stopped;
  await app.close();
  await store.close();
}

/**
 * Webhook delivery settings from the environment: AGORA_WEBHOOKS_ALLOW_PRIVATE=1 (loopback and private
 * targets, for local demos and tests), AGORA_WEBHOOK_TIMEOUT_MS, AGORA_WEBHOOK_CONCURRENCY and
 * AGORA_WEBHOOK_RETRY_SCHEDULE (seconds before each retry, comma-separated).
 */
export function webhookSettingsFromEnv(env: NodeJS.ProcessEnv) {
  const positive = (name: string) => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
    return n;
  };
  const schedule = env.AGORA_WEBHOOK_RETRY_SCHEDULE?.trim();
  const retrySchedule = schedule ? schedule.split(',').map(Number) : undefined;
  if (retrySchedule?.some((n) => !Number.isFinite(n) || n < 0))
    throw new Error('AGORA_WEBHOOK_RETRY_SCHEDULE must be seconds separated by commas, e.g. 10,60,300');
  return {
    allowPrivate: env.AGORA_WEBHOOKS_ALLOW_PRIVATE === '1' || env.AGORA_WEBHOOKS_ALLOW_PRIVATE === 'true',
    timeoutMs: positive('AGORA_WEBHOOK_TIMEOUT_MS'),
    concurrency: positive('AGORA_WEBHOOK_CONCURRENCY'),
    retrySchedule,
  };
}
