import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { seedMembers } from '../helpers/app.js';
import { BIN, useServer } from '../helpers/server.js';
import { onPostgres, TEST_SECRET_KEY } from '../helpers/store-target.js';
import { envFor } from './support.js';

/**
 * `agora … | head -1`: the reader leaves after one line, the rest of the output has nowhere to go. That is the
 * reader's choice: every command ends quietly (exit 0, nothing on stderr), exports included (docs/architecture.md, "The client and the CLI").
 */
const server = useServer();

beforeAll(async () => {
  // Output well past a pipe's 64 KiB, so that writes go on after `head` has left. Straight into the store: one
  // password hash for all, where the API would compute one each.
  const store = await openStore(server.db, onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
  try {
    await seedMembers(store, 1500);
  } finally {
    await store.close();
  }
});

/** `agora ARGS | head -1` in bash: agora's exit code (PIPESTATUS), its stderr, and what head printed. */
function intoHead(args: string[]): Promise<{ code: number; stderr: string; first: string }> {
  const env = { ...process.env, HOME: server.dir, XDG_CONFIG_HOME: join(server.dir, '.config'), ...envFor(server) };
  const script = `"$@" 2>&3 | head -1; echo "agora-exit=\${PIPESTATUS[0]}" >&2`;
  const child = spawn('bash', ['-c', script, 'bash', process.execPath, BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let first = '';
  let status = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c) => (first += c));
  child.stderr!.setEncoding('utf8').on('data', (c) => (status += c));
  (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8');
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (c: string) => (stderr += c));
  return new Promise((ok, fail) => {
    child.on('error', fail);
    child.on('close', () => ok({ code: Number(/agora-exit=(\d+)/.exec(status)?.[1] ?? -1), stderr, first }));
  });
}

describe('a reader that leaves early', () => {
  // The exports failed with `error: write EPIPE`, exit 1; the lists and a large JSON document guard the rest.
  it.each(['users export', 'users export --format csv', 'users list --all', 'users list --all --json', 'openapi'])(
    'agora %s | head -1 ends quietly',
    async (command) => {
      const run = await intoHead(command.split(' '));
      expect(run.first.split('\n').filter(Boolean)).toHaveLength(1);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    },
  );
});
