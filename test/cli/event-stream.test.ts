import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notification } from '../../src/shared/schemas/notifications.js';
import { BIN } from '../helpers/server.js';

/**
 * `agora notifications watch` against a server that writes its event stream in chunks of its choosing: the
 * events must come out as the Server-Sent Events rules read them, however the bytes are split.
 */
const notification = (id: string, nickname: string): Notification => ({
  id,
  user_id: 'a'.repeat(32),
  seen: false,
  created_at: '2026-01-02T03:04:05.000Z',
  updated_at: '2026-01-02T03:04:05.000Z',
  action_name: 'followed',
  link_type: 'User',
  notification_type: 'follow',
  subject_name: nickname,
  final_target_name: 'you',
  comment_info: {},
  permissions: [],
  target_name: null,
  picture_url: null,
  link_id: null,
  subject_id: null,
  subject_type: 'User',
  subject_slug: null,
  link_slug: null,
  target_type: null,
  target_id: null,
  target_slug: null,
  final_target_type: null,
  final_target_id: null,
  final_target_slug: null,
});

/** One opening of the stream: the chunks it writes (a pause between each), then whether it ends. */
type Script = (res: ServerResponse) => Promise<void>;

let sse: Server;
let url: string;
let home: string;
let scripts: Script[] = [];
/** The Last-Event-ID of each opening, in order ('' for none). */
let openings: string[] = [];
/** How many openings to refuse first, as a server that is shutting down does (503 server_busy, Retry-After). */
let busy = 0;
const pause = () => new Promise((ok) => setTimeout(ok, 150));

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'agora-sse-'));
  sse = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.endsWith('/notifications/stream')) return res.writeHead(404).end();
    openings.push(String(req.headers['last-event-id'] ?? ''));
    if (busy > 0) {
      busy--;
      const body = { error: { code: 'server_busy', message: 'The server is shutting down: retry later', request_id: 'r1' } };
      return res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify(body));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.flushHeaders();
    void (scripts.shift() ?? (async () => undefined))(res);
  });
  await new Promise<void>((ok) => sse.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(sse.address() as AddressInfo).port}`;
});
afterAll(async () => {
  sse.closeAllConnections();
  await new Promise((ok) => sse.close(ok));
  rmSync(home, { recursive: true, force: true });
});

/** Runs `agora notifications watch --json` until `done` holds for its lines (bounded), then interrupts it. */
async function watch(done: (lines: string[]) => boolean): Promise<{ lines: string[]; code: number | null; stderr: string }> {
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), AGORA_URL: url, AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_x' };
  const child = spawn(process.execPath, [BIN, 'notifications', 'watch', '--user', 'me', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const lines = () => stdout.split('\n').filter(Boolean);
  for (let i = 0; i < 200 && !done(lines()) && child.exitCode === null; i++) await new Promise((ok) => setTimeout(ok, 50));
  child.kill('SIGINT');
  return { lines: lines(), code: await exited, stderr };
}

describe('the live-notification parser', () => {
  it('reads "data: a\\r" + "\\ndata: b\\r\\n\\r\\n" arriving in two chunks as ONE event', async () => {
    const first = notification('1'.repeat(32), 'split-across-chunks');
    const [head, tail] = [JSON.stringify(first).slice(0, 40), JSON.stringify(first).slice(40)];
    scripts = [
      async (res) => {
        res.write(`event: notification\r\nid: ${first.id}\r\ndata: ${head}\r`);
        await pause();
        res.write(`\ndata: ${tail}\r\n\r\n`);
      },
    ];
    openings = [];
    const run = await watch((lines) => lines.length >= 1);
    expect(run.stderr).not.toMatch(/error|invalid/i);
    expect(run.lines.map((l) => JSON.parse(l))).toEqual([first]);
  });

  it('ignores an id holding NUL: the reconnection resumes after the last valid id', async () => {
    const [kept, afterNul, later] = [notification('2'.repeat(32), 'kept'), notification('3'.repeat(32), 'after-nul'), notification('4'.repeat(32), 'later')];
    scripts = [
      async (res) => {
        res.write(`event: notification\nid: ${kept.id}\ndata: ${JSON.stringify(kept)}\n\n`);
        res.write(`event: notification\nid: bad\u0000id\ndata: ${JSON.stringify(afterNul)}\n\n`);
        await pause();
        res.end();
      },
      async (res) => {
        res.write(`event: notification\nid: ${later.id}\ndata: ${JSON.stringify(later)}\n\n`);
      },
    ];
    openings = [];
    const run = await watch((lines) => lines.length >= 3);
    expect(run.lines.map((l) => JSON.parse(l).subject_name)).toEqual(['kept', 'after-nul', 'later']);
    expect(openings).toEqual(['', kept.id]);
  });

  it('takes a 503 "retry later" (a server shutting down) for a drop: says so once, opens again and goes on', async () => {
    const after = notification('5'.repeat(32), 'after-busy');
    busy = 1;
    scripts = [
      async (res) => {
        res.write(`event: notification\nid: ${after.id}\ndata: ${JSON.stringify(after)}\n\n`);
      },
    ];
    openings = [];
    const run = await watch((lines) => lines.length >= 1);
    expect(run.lines.map((l) => JSON.parse(l).subject_name)).toEqual(['after-busy']);
    expect(openings).toEqual(['', '']);
    expect(run.stderr).toMatch(/connection lost \(The server is shutting down: retry later.*\); reconnecting…/);
    expect(run.code).toBe(130);
  });

  it('stops at an "ended" event (the watcher suspended), saying why, without opening the stream again', async () => {
    const before = notification('6'.repeat(32), 'before-end');
    const body = { error: { code: 'account_suspended', message: 'Your account is suspended: spam', request_id: 'r2' } };
    scripts = [
      async (res) => {
        res.write(`event: notification\nid: ${before.id}\ndata: ${JSON.stringify(before)}\n\n`);
        await pause();
        res.end(`event: ended\ndata: ${JSON.stringify(body)}\n\n`);
      },
    ];
    openings = [];
    const run = await watch(() => false);
    expect(run.lines.map((l) => JSON.parse(l).subject_name)).toEqual(['before-end']);
    expect(openings).toEqual(['']);
    expect(run.stderr).toMatch(/Your account is suspended: spam/);
    expect(run.stderr).not.toMatch(/reconnecting/);
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBe(130);
  });
});
