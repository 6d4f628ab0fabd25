import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError, ErrorCode } from '../shared/errors.js';
import { newId } from '../shared/ids.js';

export interface ConnectionLimits {
  /** A request body must arrive whole within this many milliseconds of its headers (AGORA_BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Connections one address may hold open before a request on them authenticates (AGORA_MAX_UNAUTH_CONNECTIONS_PER_ADDRESS). */
  unauthenticatedPerAddress?: number;
}

export const DEFAULT_CONNECTION_LIMITS = { bodyTimeoutMs: 10_000, unauthenticatedPerAddress: 100 } satisfies Required<ConnectionLimits>;

/**
 * What a stranger can hold without credentials (CONTRACT §9). A request the server answers before reading
 * its body whole (a 401, a 413 announced, a 408) closes its connection, so that nobody keeps one open by
 * sending a body a byte at a time; every body has a deadline; and one address holds at most so many
 * connections that have not yet authenticated (beyond it a new one is answered 429 and closed, before
 * anything is read from it), so that one host cannot take every descriptor of the process.
 */
export class ConnectionGuard {
  private readonly limits: Required<ConnectionLimits>;
  private readonly unauthenticated = new Map<string, number>();
  /** Sockets counted against their address, and the address each is counted under. */
  private readonly counted = new WeakMap<Socket, string>();
  private readonly refused = new WeakSet<Socket>();

  constructor(limits: ConnectionLimits = {}) {
    const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
    this.limits = { ...DEFAULT_CONNECTION_LIMITS, ...given };
  }

  install(app: FastifyInstance): void {
    app.server.on('connection', (socket: Socket) => this.admit(socket));
    app.addHook('onRequest', async (request, reply) => {
      // A refused connection's request is never handled: its 429 is on its way and the socket closes after it.
      if (this.refused.has(request.raw.socket)) {
        reply.hijack();
        request.raw.socket.destroy();
      }
    });
    app.addHook('preParsing', async (request, reply, payload) => {
      const length = request.headers['content-length'];
      if ((length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined) return payload;
      const left = Math.max(0, this.limits.bodyTimeoutMs - reply.elapsedTime);
      const timer = setTimeout(() => {
        // Fastify reads the body through its listeners on the request stream: an error there answers it.
        if (!request.raw.complete && request.raw.listenerCount('error') > 0)
          request.raw.emit(
            'error',
            new AppError(408, ErrorCode.requestTimeout, `The request body did not arrive whole within ${this.limits.bodyTimeoutMs} ms`),
          );
      }, left);
      const done = () => clearTimeout(timer);
      request.raw.once('end', done);
      reply.raw.once('close', done);
      return payload;
    });
    app.addHook('onSend', async (request, reply) => {
      // Answered before its body was read whole: the rest of it is not read, and the connection goes with it.
      if (request.raw.complete === false) reply.header('connection', 'close');
    });
  }

  /** A request on this socket authenticated: it no longer counts against its address. */
  authenticated(socket: Socket): void {
    const address = this.counted.get(socket);
    if (address === undefined) return;
    this.counted.delete(socket);
    const left = (this.unauthenticated.get(address) ?? 1) - 1;
    if (left > 0) this.unauthenticated.set(address, left);
    else this.unauthenticated.delete(address);
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    const held = this.unauthenticated.get(address) ?? 0;
    if (held >= this.limits.unauthenticatedPerAddress) {
      this.refused.add(socket);
      socket.end(tooManyConnections(this.limits.unauthenticatedPerAddress), () => socket.destroy());
      return;
    }
    this.unauthenticated.set(address, held + 1);
    this.counted.set(socket, address);
    socket.once('close', () => this.authenticated(socket));
  }
}

function tooManyConnections(limit: number): string {
  const requestId = newId();
  const body = JSON.stringify(
    new AppError(
      429,
      ErrorCode.tooManyConnections,
      `This address holds ${limit} connections that have not authenticated yet, the most allowed: use those, or close some`,
    ).toBody(requestId),
  );
  return (
    `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `retry-after: 5\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`
  );
}
