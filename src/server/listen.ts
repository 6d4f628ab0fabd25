import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { ensureApiKey, issueApiKey, listApiKeys } from '../domain/api-keys.js';
import type { Deps } from '../domain/context.js';
import { DEFAULT_SCRYPT_COST, SCRYPT_COST } from '../domain/secrets.js';
import { seedDemo } from '../domain/demo.js';
import { webhooksNotOpened } from '../domain/webhooks.js';
import { isPostgresTarget, openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { createApp } from './app.js';
import { rateLimitFromEnv } from './rate-limit.js';

export interface ServeOptions {
  host: string;
  port: number;
  db: string;
  /** AGORA_SECRET_KEY; without it, the key file beside the database. */
  secretKey?: string;
  demo?: boolean;
  bootstrapKey?: string;
  bootstrapSecret?: string;
  log?: boolean;
  /** Processes serving the one store (node:cluster); 1 serves in this process. */
  workers?: number | 'auto';
  /** How the person who started the server runs agora (`agora`, or `npx agora` in a checkout): next steps print it. */
  command?: string;
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
  const workers = options.workers === 'auto' ? availableParallelism() : (options.workers ?? 1);
  if (cluster.isWorker) {
    await serveOne({ ...options, demo: false, bootstrapKey: undefined, bootstrapSecret: undefined }, true);
    // The channel to the primary would keep the process alive.
    process.disconnect?.();
    return;
  }
  if (workers <= 1) return serveOne(options, false);
  return servePrimary(options, workers);
}

/**
 * The primary of `--workers N`: prepares the store once (migrations, bootstrap key, demo), then runs N
 * workers that share the listening socket and the store file. A write is committed before its answer, so a
 * read that follows it sees it whichever worker serves it. It prints the listening line once, when every
 * worker listens; SIGINT or SIGTERM stops them all gracefully; a worker that dies otherwise is replaced.
 */
async function servePrimary(options: ServeOptions, workers: number): Promise<void> {
  const prepared = await prepareStore(options);
  let stopping = false;
  const listening = new Set<number>();
  let announce: (port: number) => void = () => {};
  const allListening = new Promise<number>((resolve) => (announce = resolve));
  const start = () => {
    const worker = cluster.fork();
    worker.on('message', (message: { listening?: number }) => {
      if (message.listening === undefined) return;
      listening.add(worker.id);
      if (listening.size === workers) announce(message.listening);
    });
    worker.on('exit', () => {
      listening.delete(worker.id);
      if (!stopping) start();
    });
  };
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      stopping = true;
      const alive = Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead());
      if (alive.length === 0) return resolve();
      let left = alive.length;
      for (const worker of alive) {
        worker!.once('exit', () => --left === 0 && resolve());
        worker!.process.kill('SIGTERM');
      }
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  for (let i = 0; i < workers; i++) start();
  const port = await Promise.race([allListening, stopped.then(() => undefined)]);
  if (port !== undefined) announceListening(options, port, prepared);
  await stopped;
}

const hostInUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

type DemoKey = { api_key: string; api_secret: string };
/** What preparing the store left to say: the demo's key, that the demo was seeded before, or that no key exists yet. */
type Prepared = { demoKey?: DemoKey; demoBefore?: boolean; keyless: boolean; unopened: string[] };

/**
 * The `listening on` line (once), and the next step: with `--demo` the ready `agora login` line to paste; on a
 * store without any API key, how to make the first one (nothing can call the API before that).
 */
function announceListening(options: ServeOptions, port: number, { demoKey, demoBefore, keyless, unopened }: Prepared): void {
  const base = `http://${hostInUrl(options.host)}:${port}`;
  const agora = options.command ?? 'agora';
  options.print(`listening on ${base}`);
  if (SCRYPT_COST < DEFAULT_SCRYPT_COST)
    process.stderr.write(`warning: AGORA_SCRYPT_COST=${SCRYPT_COST} hashes new passwords and secrets below the default cost (${DEFAULT_SCRYPT_COST}): for tests, not for a community\n`);
  if (unopened.length)
    process.stderr.write(
      `warning: the secret key (AGORA_SECRET_KEY, else the file <db>.key beside a SQLite store) cannot open the signing secrets of ` +
        `${unopened.length} webhook(s) (${unopened.join(', ')}): their deliveries will fail. Serve with the key the store was served with ` +
        `(the same for every process), or delete those webhooks and add them again (docs/operations.md)\n`,
    );
  const db = isPostgresTarget(options.db) ? `'${options.db}'` : options.db;
  if (demoKey) options.print(`log in with: ${agora} login --url ${base} --api-key ${demoKey.api_key} --api-secret ${demoKey.api_secret}`);
  else if (demoBefore) {
    options.print(`log in with the key printed when it was seeded, or make another with: ${agora} admin create-key --db ${db}`);
    options.print(`then log in with: ${agora} login --url ${base}`);
  } else if (keyless) {
    options.print(`no API key yet: make the first (for the administrator "admin") with: ${agora} admin create-key --db ${db}`);
    options.print(`then log in with: ${agora} login --url ${base}`);
  }
}

/**
 * The store `--db` names, migrated. On PostgreSQL, processes on other machines share the database, so the
 * key that seals webhook secrets cannot be a file beside it: AGORA_SECRET_KEY is required.
 */
async function openServedStore(options: ServeOptions): Promise<Store> {
  if (isPostgresTarget(options.db) && !options.secretKey)
    throw new Error(
      'AGORA_SECRET_KEY is required with a PostgreSQL store: every process must seal webhook secrets with the same key, kept outside the database',
    );
  return openStore(options.db, { secretKey: options.secretKey });
}

/** Migrations, the bootstrap key and the demo, once, before any request. */
async function prepareStore(options: ServeOptions): Promise<Prepared> {
  const store = await openServedStore(options);
  try {
    return await prepare({ store, clock: () => new Date() }, options);
  } finally {
    await store.close();
  }
}

/**
 * The demo administrator's new key pair, when `--demo` seeded the community; and whether the store has no key at all.
 * A demo seeded before makes no key: each start would leave one more live administrator key behind.
 */
async function prepare(deps: Deps, options: ServeOptions): Promise<Prepared> {
  const unopened = await webhooksNotOpened(deps);
  if (options.bootstrapKey || options.bootstrapSecret) {
    if (!options.bootstrapKey || !options.bootstrapSecret)
      throw new Error('AGORA_BOOTSTRAP_API_KEY and AGORA_BOOTSTRAP_API_SECRET go together');
    await ensureApiKey(deps, options.bootstrapKey, options.bootstrapSecret);
  }
  const keyless = async () => (await listApiKeys(deps, { page: 1, per_page: 1 })).total_items === 0;
  if (options.demo) {
    if (!(await seedDemo(deps))) {
      options.print('demo community already present');
      // A store with no key left (or one --demo never seeded) is told how to make the first, as without --demo.
      return (await keyless()) ? { keyless: true, unopened } : { demoBefore: true, keyless: false, unopened };
    }
    const key = await issueApiKey(deps);
    options.print('demo community seeded');
    options.print(`demo administrator key: api_key=${key.api_key} api_secret=${key.api_secret}`);
    return { demoKey: key, keyless: false, unopened };
  }
  return { keyless: await keyless(), unopened };
}

/** One serving process: alone, or a worker that tells the primary its port instead of printing it. */
async function serveOne(options: ServeOptions, asWorker: boolean): Promise<void> {
  const store = await openServedStore(options);
  const prepared = await prepare({ store, clock: () => new Date() }, options);
  const app = await createApp({
    store,
    logger: options.log ?? false,
    logStream: options.logStream,
    webhooks: webhookSettingsFromEnv(process.env),
    auth: authLimitsFromEnv(process.env),
    rateLimit: rateLimitFromEnv(process.env),
    fanOut: { leaseMs: positiveNumber(process.env, 'AGORA_LEASE_MS') },
    connections: {
      bodyTimeoutMs: positiveNumber(process.env, 'AGORA_BODY_TIMEOUT_MS'),
      unauthenticatedPerAddress: positiveNumber(process.env, 'AGORA_MAX_UNAUTH_CONNECTIONS_PER_ADDRESS'),
      perUser: positiveNumber(process.env, 'AGORA_MAX_CONNECTIONS_PER_USER'),
    },
    live: { max: positiveNumber(process.env, 'AGORA_MAX_STREAMS') },
  });
  const address = await app.listen({ host: options.host, port: options.port }).catch(async (error: NodeJS.ErrnoException) => {
    await app.close();
    await store.close();
    if (error.code !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${options.port} on ${options.host} is already in use (another agora serve?): stop it, or pick another with --port (--port 0 picks a free one)`,
    );
  });
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
  if (asWorker) process.send?.({ listening: Number(url.port) });
  else announceListening(options, Number(url.port), prepared);
  await stopped;
  await app.close();
  await store.close();
}

const positiveNumber = (env: NodeJS.ProcessEnv, name: string): number | undefined => {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
};

/**
 * AGORA_AUTH_FAILURES_PER_ADDRESS (20) and AGORA_AUTH_FAILURES_PER_KEY (10, per key and address) failed
 * authentications a minute.
 */
export function authLimitsFromEnv(env: NodeJS.ProcessEnv) {
  return {
    failuresPerAddress: positiveNumber(env, 'AGORA_AUTH_FAILURES_PER_ADDRESS'),
    failuresPerKey: positiveNumber(env, 'AGORA_AUTH_FAILURES_PER_KEY'),
  };
}

/**
 * Webhook delivery settings from the environment: AGORA_WEBHOOKS_ALLOW_PRIVATE=1 (loopback and private
 * targets, for local demos and tests), AGORA_WEBHOOK_TIMEOUT_MS, AGORA_WEBHOOK_CONCURRENCY and
 * AGORA_WEBHOOK_RETRY_SCHEDULE (seconds before each retry, comma-separated), and AGORA_LEASE_MS (how long a
 * claimed delivery stays claimed beyond its timeout before another process may take it over; the fan-out's
 * claims last as long).
 */
export function webhookSettingsFromEnv(env: NodeJS.ProcessEnv) {
  const positive = (name: string) => positiveNumber(env, name);
  const schedule = env.AGORA_WEBHOOK_RETRY_SCHEDULE?.trim();
  const retrySchedule = schedule ? schedule.split(',').map(Number) : undefined;
  if (retrySchedule?.some((n) => !Number.isFinite(n) || n < 0))
    throw new Error('AGORA_WEBHOOK_RETRY_SCHEDULE must be seconds separated by commas, e.g. 10,60,300');
  return {
    allowPrivate: env.AGORA_WEBHOOKS_ALLOW_PRIVATE === '1' || env.AGORA_WEBHOOKS_ALLOW_PRIVATE === 'true',
    timeoutMs: positive('AGORA_WEBHOOK_TIMEOUT_MS'),
    concurrency: positive('AGORA_WEBHOOK_CONCURRENCY'),
    leaseMarginMs: positive('AGORA_LEASE_MS'),
    retrySchedule,
  };
}
