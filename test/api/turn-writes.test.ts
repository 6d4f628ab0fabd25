import { connect, type Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnWrites } from '../../src/server/turn-writes.js';
import { PREFIX } from '../helpers/server.js';
import Database from 'better-sqlite3';
import { startApp, useApp, type TestApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/store-target.js';

describe('TurnWrites', () => {
  const failed = (error: unknown) => {
    throw new Error(`unexpected: ${String(error)}`);
  };

  it('runs the writes of a turn at its end, in order, after its promises, before the next turn', async () => {
    const ran: string[] = [];
    const writes = new TurnWrites();
    writes.reading();
    writes.defer(() => ran.push('a'), failed);
    await Promise.resolve();
    writes.defer(() => ran.push('b'), failed);
    await Promise.resolve();
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(['a', 'b']);
    // Ready after they went, before a request was read (a write transaction's answer, its group committed in the
    // same check phase): at once.
    writes.defer(() => ran.push('c'), failed);
    expect(ran).toEqual(['a', 'b', 'c']);
    // A request read: the writes of its turn wait for each other again.
    writes.reading();
    writes.defer(() => ran.push('d'), failed);
    expect(ran).toEqual(['a', 'b', 'c']);
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
  });

  it('hands a write that throws to its own failure, and still runs the others', async () => {
    const ran: string[] = [];
    const writes = new TurnWrites();
    writes.defer(() => ran.push('a'), failed);
    writes.defer(
      () => {
        throw new Error('socket gone');
      },
      (error) => ran.push(`failed: ${(error as Error).message}`),
    );
    writes.defer(() => ran.push('c'), failed);
    await nextTurn();
    expect(ran).toEqual(['a', 'failed: socket gone', 'c']);
  });

  it('once stopped, writes what waits at once, and every later write at once', () => {
    const ran: string[] = [];
    const writes = new TurnWrites();
    writes.defer(() => ran.push('a'), failed);
    writes.stop();
    expect(ran).toEqual(['a']);
    writes.reading();
    writes.defer(() => ran.push('b'), failed);
    expect(ran).toEqual(['a', 'b']);
  });
});

/**
 * The test app listening on a port, its key verified once first (scrypt, on the thread pool: from then on a
 * request is handled within its turn), and how to talk to it over raw sockets.
 */
async function listening(t: TestApp) {
  expect((await t.call('GET', '/pages?per_page=1')).status).toBe(200);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  return {
    /** A connection of its own, open. */
    async connect(): Promise<Socket> {
      const socket = connect(port, '127.0.0.1');
      await new Promise((ok) => socket.once('connect', ok));
      return socket;
    },
    /** A request for the first page of pages, as the Admin. */
    get: `GET ${PREFIX}/pages?per_page=1 HTTP/1.1\r\nhost: x\r\napi-key: ${t.admin.key}\r\napi-secret: ${t.admin.secret}\r\n\r\n`,
  };
}

describe('the answers of one turn', () => {
  const t = useApp();

  it('are written together once every request read in that turn was handled, and all arrive', async () => {
    const server = await listening(t);
    // When each request came in and when each answer was written, as the server's own events say.
    const events: string[] = [];
    const onRequest = (_req: unknown, res: { on(event: string, listener: () => void): void }) => {
      events.push('request');
      res.on('prefinish', () => events.push('answer'));
    };
    t.app.server.prependListener('request', onRequest);
    try {
      const sockets: Socket[] = [];
      for (let i = 0; i < 6; i++) sockets.push(await server.connect());
      const answers = sockets.map(
        (socket) =>
          new Promise<string>((ok) => {
            let text = '';
            // The whole answer: its head and as many bytes of body as its Content-Length says.
            socket.on('data', (chunk) => {
              text += chunk;
              const head = text.indexOf('\r\n\r\n');
              const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, head));
              if (head >= 0 && length && Buffer.byteLength(text.slice(head + 4)) >= Number(length[1])) ok(text);
            });
          }),
      );
      // Written in one turn of this process's loop (the server's too): the server reads them all in its next one.
      for (const socket of sockets) socket.write(server.get);
      const texts = await Promise.all(answers);
      for (const text of texts) expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(events).toEqual([...Array(6).fill('request'), ...Array(6).fill('answer')]);
      for (const socket of sockets) socket.destroy();
    } finally {
      t.app.server.off('request', onRequest);
    }
  });
});

describe('the answers of a turn with a write in it', () => {
  const t = useApp();

  it.skipIf(onPostgres)('go before the write commits, though the write was read first [SQLite]', async () => {
    const server = await listening(t);
    const config = await t.call('POST', '/page_configurations', { body: { name: 'Turn writes' } });
    expect(config.status).toBe(201);
    const name = `Read first ${Date.now()}`;
    const body = JSON.stringify({ name, privacy: 'public', page_configuration_id: config.body.id, user_id: t.admin.id });
    const post =
      `POST ${PREFIX}/pages HTTP/1.1\r\nhost: x\r\napi-key: ${t.admin.key}\r\napi-secret: ${t.admin.secret}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // Whether the page was committed when each answer was written, read on a connection of its own.
    const raw = new Database(t.file, { readonly: true });
    const committed = () => raw.prepare('select count(*) from pages where name = ?').pluck().get(name) === 1;
    const written: string[] = [];
    const onRequest = (req: { method?: string }, res: { on(event: string, listener: () => void): void }) =>
      res.on('prefinish', () => written.push(`${req.method} ${committed() ? 'after' : 'before'} the commit`));
    t.app.server.prependListener('request', onRequest);
    try {
      const sockets: Socket[] = [];
      for (let i = 0; i < 4; i++) sockets.push(await server.connect());
      const answers = sockets.map(
        (socket) => new Promise<void>((ok) => socket.on('data', (chunk) => String(chunk).includes('\r\n\r\n') && ok())),
      );
      // Read in one turn, the write first: it asks for its group's commit before any answer of the turn is ready.
      sockets[0]!.write(post);
      for (const socket of sockets.slice(1)) socket.write(server.get);
      await Promise.all(answers);
      expect(written).toEqual([...Array(3).fill('GET before the commit'), 'POST after the commit']);
      for (const socket of sockets) socket.destroy();
    } finally {
      t.app.server.off('request', onRequest);
      raw.close();
    }
  });
});

describe('an answer kept for the end of its turn', () => {
  it('is written at once when the app closes meanwhile, and its connection closed after it', async () => {
    const t = await startApp();
    try {
      const server = await listening(t);
      let closed: Promise<void> | undefined;
      // The close begins in the turn that handled the request, before its answer's turn ends (as a SIGTERM
      // handled in that turn would): this runs first in the turn's check phase, ahead of the answers' writes.
      t.app.server.prependOnceListener('request', () => setImmediate(() => (closed = t.app.close())));
      const socket = await server.connect();
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      const ended = new Promise((ok) => socket.once('close', ok));
      socket.write(server.get);
      // The client keeps its end open: only the server's close of the connection ends it (keep-alive would have
      // kept it, and the app's close, waiting for 72 s).
      await ended;
      expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(text.toLowerCase()).toContain('\r\nconnection: close\r\n');
      await closed;
    } finally {
      await t.app.close();
      await t.store.close();
    }
  });

  it('is a 500 in the contract shape when its write throws, and the next answers still go', async () => {
    const t = await startApp({
      beforeReady: (app) =>
        app.get('/unwritable', (_request, reply) => {
          // A header Node refuses to send: Fastify throws from its writeHead, after the hooks.
          void reply.header('x-unsendable', 'caf\u00e9 \u263a').send({ ok: true });
        }),
    });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/unwritable', headers: { 'api-key': t.admin.key, 'api-secret': t.admin.secret } });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: { code: 'internal_error', message: expect.any(String), request_id: res.headers['x-request-id'] } });
      expect(res.headers['x-unsendable']).toBeUndefined();
      expect((await t.call('GET', '/pages?per_page=1')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
