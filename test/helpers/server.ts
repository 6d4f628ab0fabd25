import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { onPostgres, storeTargetFor, TEST_SECRET_KEY } from './store-target.js';

export const BIN = resolve(__dirname, '../../bin/agora.js');
export const PREFIX = '/public-api/v1';

export interface Credentials {
  key: string;
  secret: string;
}

export interface RunningServer {
  url: string;
  dir: string;
  /** The store: a SQLite file in `dir`, or with AGORA_TEST_DB a postgres:// URL (a schema of its own). */
  db: string;
  admin: Credentials;
  process: ChildProcess;
  /** Everything the server printed to stdout. */
  output(): string;
  /** Everything the server printed to stderr. */
  errors(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the real `agora serve` binary on a free port with a temp database and a known bootstrap
 * administrator key, and waits for its `listening on` line.
 */
export async function startServer(
  options: { env?: Record<string, string>; args?: string[]; dir?: string; /** this store, whatever AGORA_TEST_DB says */ db?: string } = {},
): Promise<RunningServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'agora-test-'));
  const db = options.db ?? (await storeTargetFor(dir));
  const admin = { key: `ak_${randomBytes(8).toString('hex')}`, secret: `as_${randomBytes(16).toString('hex')}` };
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', db, ...(options.args ?? [])], {
    env: {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, '.config'),
      AGORA_BOOTSTRAP_API_KEY: admin.key,
      AGORA_BOOTSTRAP_API_SECRET: admin.secret,
      ...(onPostgres ? { AGORA_SECRET_KEY: TEST_SECRET_KEY } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start: ${stderr}`)), 60_000);
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        ok(match[1]!);
      }
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    dir,
    db,
    admin,
    process: child,
    output: () => stdout,
    errors: () => stderr,
    stop: (signal = 'SIGTERM') =>
      new Promise((ok, fail) => {
        // Ended already (by an exit, or by a signal such as a kill -9): nothing to wait for.
        if (child.exitCode !== null || child.signalCode !== null) return ok(child.exitCode);
        // A server that does not stop is a failure that says so, not a test left to its timeout minutes later.
        const hung = setTimeout(() => {
          child.kill('SIGKILL');
          fail(new Error(`agora serve did not exit within 30 s of ${signal}; its stderr:\n${stderr.slice(-2000)}`));
        }, 30_000);
        child.once('exit', (code) => {
          clearTimeout(hung);
          ok(code);
        });
        child.kill(signal);
      }),
  };
}

/**
 * One real server for the whole test file: started before its tests, stopped and its folder removed after.
 * The object is filled in when the server has started, so tests use it as they would the server itself.
 */
export function useServer(options: Parameters<typeof startServer>[0] = {}): RunningServer {
  const server = {} as RunningServer;
  beforeAll(async () => {
    Object.assign(server, await startServer(options));
  });
  afterAll(async () => {
    await server.stop();
    removeDir(server.dir);
  });
  return server;
}

/** Removes a test folder (a PostgreSQL store's schema is dropped at the end of the run: test/helpers/pg-global.ts). */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
