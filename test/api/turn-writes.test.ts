import { connect, type Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnWrites } from '../../src/server/turn-writes.js';
import { PREFIX } from '../helpers/server.js';
import { useApp } from '../helpers/app.js';

describe('TurnWrites', () => {
  it('runs the writes of a turn at its end, in order, after its promises, before the next turn', async () => {
    const ran: string[] = [];
    const writes = new TurnWrites((error) => ran.push(`error ${String(error)}`));
    writes.defer(() => ran.push('a'));
    await Promise.resolve();
    writes.defer(() => ran.push('b'));
    await Promise.resolve();
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(['a', 'b']);
    // A later turn's writes: at the end of that one.
    writes.defer(() => ran.push('c'));
    expect(ran).toEqual(['a', 'b']);
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('reports a write that throws and still runs the others', async () => {
    const ran: string[] = [];
    const writes = new TurnWrites((error) => ran.push(`error ${(error as Error).message}`));
    writes.defer(() => ran.push('a'));
    writes.defer(() => {
      throw new Error('socket gone');
    });
    writes.defer(() => ran.push('c'));
    await nextTurn();
    expect(ran).toEqual(['a', 'error socket gone', 'c']);
  });
});

describe('the answers of one turn', () => {
  const t = useApp();

  it('are written together once every request read in that turn was handled, and all arrive', async () => {
    // The key verified once (scrypt, on the thread pool): from then on a request is handled within its turn.
    expect((await t.call('GET', '/pages?per_page=1')).status).toBe(200);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    // When each request came in and when each answer was written, as the server's own events say.
    const events: string[] = [];
    const onRequest = (_req: unknown, res: { on(event: string, listener: () => void): void }) => {
      events.push('request');
      res.on('prefinish', () => events.push('answer'));
    };
    t.app.server.prependListener('request', onRequest);
    try {
      const sockets: Socket[] = [];
      for (let i = 0; i < 6; i++) {
        const socket = connect(port, '127.0.0.1');
        await new Promise((ok) => socket.once('connect', ok));
        sockets.push(socket);
      }
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
      for (const socket of sockets)
        socket.write(
          `GET ${PREFIX}/pages?per_page=1 HTTP/1.1\r\nhost: x\r\napi-key: ${t.admin.key}\r\napi-secret: ${t.admin.secret}\r\n\r\n`,
        );
      const texts = await Promise.all(answers);
      for (const text of texts) expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(events).toEqual([...Array(6).fill('request'), ...Array(6).fill('answer')]);
      for (const socket of sockets) socket.destroy();
    } finally {
      t.app.server.off('request', onRequest);
    }
  });
});
