import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../shared/errors.js';
import { clientOf } from '../shared/client-address.js';
import { newId } from '../shared/ids.js';

export interface ConnectionLimits {
  /** A request body must arrive whole within this many milliseconds of its headers (AGORA_BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Connections one address may hold open before a request on them authenticates (AGORA_MAX_UNAUTH_CONNECTIONS_PER_ADDRESS). */
  unauthenticatedPerAddress?: number;
  /** Connections one user may hold open once their requests authenticate, from any address (AGORA_MAX_CONNECTIONS_PER_USER). */
  perUser?: number;
}

export const DEFAULT_CONNECTION_LIMITS = { bodyTimeoutMs: 10_000, unauthenticatedPerAddress: 100, perUser: 256 } satisfies Required<ConnectionLimits>;

/**
 * How long a connection being closed still takes (and drops) what its client sends, after the answer: closed at
 * once with bytes unread, the kernel would answer them with a reset, and the client could lose the answer
 * (a 401, a 413) while it is still writing its body.
 */
const LINGER_MS = 2000;

/**
 * What a stranger can hold without credentials (docs/security.md). A request answered without valid credentials,
 * or before its body was read whole while unauthenticated, closes its connection, so that nobody keeps one
 * open by sending a body a byte at a time; every body has a deadline (408, closed); and one address holds at
 * most so many connections that have not yet authenticated (beyond it a new one is answered 429 and closed
 * before any request on it is handled), so that one host cannot take every descriptor of the process. Once a
 * request on it authenticates, a connection counts against its user instead, who holds at most so many from any
 * address (one more is answered 429 and closed): a key is no way around the bound.
 */
export class ConnectionGuard {
  private readonly limits: Required<ConnectionLimits>;
  private readonly unauthenticated = new Map<string, number>();
  /** Sockets counted against their address, and the address each is counted under. */
  private readonly counted = new WeakMap<Socket, string>();
  /** Sockets being closed: a request that still arrives on one is not handled. */
  private readonly ending = new WeakSet<Socket>();
  /** Connections held per user, and the user each socket counts against (the first to authenticate on it). */
  private readonly byUser = new Map<string, number>();
  private readonly heldBy = new WeakMap<Socket, string>();
  /** Sockets this guard admitted (a request injected in a test has none of its own, and is counted nowhere). */
  private readonly admitted = new WeakSet<Socket>();

  constructor(limits: ConnectionLimits = {}) {
    const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
    this.limits = { ...DEFAULT_CONNECTION_LIMITS, ...given };
  }

  install(app: FastifyInstance): void {
    app.server.on('connection', (socket: Socket) => this.admit(socket));
    // `Expect: 100-continue`: Node would ask for the body at once; it is asked for once the request is let in and its
    // body is one that will be read (`askForBody`), so that nobody is told to send a body that is not (a 401 first).
    app.server.on('checkContinue', (req, res) => app.server.emit('request', req, res));
    app.addHook('onRequest', async (request, reply) => {
      if (this.ending.has(request.raw.socket)) return void reply.hijack();
      if (hasBody(request.headers)) this.armDeadline(request, reply);
    });
    app.addHook('preParsing', async (request, reply, payload) => {
      // Authentication waited past the deadline (a long scrypt queue): no time is left to read the body.
      if (hasBody(request.headers) && request.raw.complete === false && reply.elapsedTime >= this.limits.bodyTimeoutMs)
        throw this.timedOut();
      return payload;
    });
    // Synchronous (a callback): installed before the hook that writes answers at the end of the turn, which
    // catches a failing write only while its `done` runs within its own call.
    app.addHook('onSend', (request, reply, payload, done) => {
      // Its body not read whole, and nobody known sent it: the rest is not read, the connection goes with it.
      // (Fastify closes the connection itself after a body it could not read, a 413: that close lingers too.)
      const incomplete = request.raw.complete === false;
      if (reply.statusCode === 408 || (incomplete && (!request.caller || reply.getHeader('connection') === 'close')))
        this.closeAfter(request.raw.socket, reply);
      done(null, payload);
    });
  }

  /** The connection closes once this answer is written, lingering a little (LINGER_MS) for the client to read it. */
  closeAfter(socket: Socket, reply: FastifyReply): void {
    void reply.header('connection', 'close');
    if (this.ending.has(socket)) return;
    this.ending.add(socket);
    // Node ends a `Connection: close` socket with destroySoon once the answer is written.
    socket.destroySoon = () => {
      socket.end();
      const timer = setTimeout(() => socket.destroy(), LINGER_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    };
  }

  /**
   * A request on this socket authenticated as `userId`: the socket counts against the first user to authenticate on
   * it, no longer against its address. Refused (429, closed) when it would be one more than that user may hold.
   * Later users' requests on it (a reverse proxy's pooled connection) never move it, so none is refused for it.
   */
  authenticatedAs(socket: Socket, userId: string): AppError | undefined {
    this.authenticated(socket);
    if (!this.admitted.has(socket) || this.heldBy.has(socket)) return undefined;
    const held = this.byUser.get(userId) ?? 0;
    if (held >= this.limits.perUser)
      return new AppError(
        429,
        ErrorCode.tooManyConnections,
        `You hold ${this.limits.perUser} connections to this server, the most allowed: send your requests on those, or close some`,
        undefined,
        { 'retry-after': '5' },
      );
    this.heldBy.set(socket, userId);
    this.byUser.set(userId, held + 1);
    return undefined;
  }

  /** A request on this socket authenticated: it no longer counts against its address. */
  private authenticated(socket: Socket): void {
    uncount(socket, this.counted, this.unauthenticated);
  }

  private timedOut(): AppError {
    return new AppError(408, ErrorCode.requestTimeout, `The request body did not arrive whole within ${this.limits.bodyTimeoutMs} ms`);
  }

  /**
   * At the deadline, a body still arriving is answered 408 (Fastify reads it through its listeners on the
   * request stream: an error there answers it); one still being drained after an early answer (Node reads
   * and drops the rest of an authenticated request's body) has its connection closed.
   */
  private armDeadline(request: FastifyRequest, reply: FastifyReply): void {
    let timer: NodeJS.Timeout;
    const check = () => {
      if (request.raw.complete !== false) return;
      if (reply.raw.writableFinished) request.raw.socket.destroy();
      else if (!reply.raw.headersSent && request.raw.listenerCount('error') > 0) request.raw.emit('error', this.timedOut());
      // Neither read nor answered yet (authentication still under way): looked at again shortly.
      else (timer = setTimeout(check, 50)).unref();
    };
    (timer = setTimeout(check, this.limits.bodyTimeoutMs)).unref();
    // The socket outlives the request (keep-alive): its listener goes when the request has been read.
    const socket = request.raw.socket;
    const stop = () => clearTimeout(timer);
    socket.once('close', stop);
    request.raw.once('end', () => {
      stop();
      socket.off('close', stop);
    });
  }

  private admit(socket: Socket): void {
    const address = clientOf(socket.remoteAddress);
    const held = this.unauthenticated.get(address) ?? 0;
    if (held >= this.limits.unauthenticatedPerAddress) {
      this.ending.add(socket);
      socket.end(tooManyConnections(this.limits.unauthenticatedPerAddress));
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
      return;
    }
    this.unauthenticated.set(address, held + 1);
    this.counted.set(socket, address);
    this.admitted.add(socket);
    socket.once('close', () => {
      this.authenticated(socket);
      uncount(socket, this.heldBy, this.byUser);
    });
  }
}

/**
 * Asks a client that sent `Expect: 100-continue` for its body, once the route has let the request in and found its
 * body readable (`refuseUnreadableBody`): a body of a kind the API reads, by a method that has one. Any other is
 * answered without being asked for.
 */
export function askForBody(request: FastifyRequest, reply: FastifyReply): void {
  if (!/100-continue/i.test(request.headers.expect ?? '') || reply.raw.headersSent || !hasBody(request.headers)) return;
  if (request.method === 'GET' || request.method === 'HEAD') return;
  if (!/^\s*(application\/json|application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i.test(request.headers['content-type'] ?? '')) return;
  reply.raw.writeContinue();
}

const hasBody = (headers: FastifyRequest['headers']) =>
  (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;

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

/** The socket no longer counts against whom (an address, a user) `owners` says it does, in `counts`. */
function uncount(socket: Socket, owners: WeakMap<Socket, string>, counts: Map<string, number>): void {
  const owner = owners.get(socket);
  if (owner === undefined) return;
  owners.delete(socket);
  const left = (counts.get(owner) ?? 1) - 1;
  if (left > 0) counts.set(owner, left);
  else counts.delete(owner);
}
