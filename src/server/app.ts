import { STATUS_CODES, type ServerResponse } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Authenticator, type AuthLimits } from '../domain/authenticator.js';
import type { Clock, Deps } from '../domain/context.js';
import { clientOf } from '../shared/client-address.js';
import { AppError, ErrorCode } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Store } from '../store/store.js';
import { ConnectionGuard, type ConnectionLimits } from './connection-limits.js';
import { logFailure, toAppError } from './failures.js';
import { API_PREFIX, type RouteContext } from './context.js';
import { LiveStreams, type LiveStreamLimits } from './live-streams.js';
import { jsonRefusal, parseUrlencoded, utf8Text } from './bodies.js';
import { boundaryOf, parseMultipart } from './multipart.js';
import { requestIdOf } from './request-id.js';
import { TurnWrites } from './turn-writes.js';
import { NotificationFanOut, type FanOutOptions } from './notification-fanout.js';
import { DEFAULT_RATE_LIMIT, RateLimiter, type RateLimitSettings } from './rate-limit.js';
import { RouteRegistry } from './route.js';
import { registerAccessRequestRoutes } from './routes/access-requests.js';
import { registerApiKeyRoutes } from './routes/api-keys.js';
import { registerContentRoutes } from './routes/content.js';
import { registerRemovalRoutes } from './routes/removals.js';
import { registerSuspensionRoutes } from './routes/suspensions.js';
import { registerReportRoutes } from './routes/reports.js';
import { requireMayUseApi } from '../domain/suspensions.js';
import { registerEventRoutes } from './routes/events.js';
import { registerNotificationRoutes } from './routes/notifications.js';
import { registerFollowRoutes } from './routes/follows.js';
import { registerInviteRoutes } from './routes/invites.js';
import { registerMetaRoutes } from './routes/meta.js';
import { registerModerationRoutes } from './routes/moderation.js';
import { registerPageRoutes } from './routes/pages.js';
import { registerPermissionRoutes } from './routes/permissions.js';
import { registerRoleRoutes } from './routes/roles.js';
import { registerUserRoutes } from './routes/users.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { WebhookSender, type WebhookSenderOptions } from './webhook-sender.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  store: Store;
  clock?: Clock;
  bodyLimit?: number;
  /** Log every request; without it only errors and warnings are logged (to `logStream`). */
  logger?: boolean;
  /** Failed-authentication limits and the scrypt queue (defaults in DEFAULT_AUTH_LIMITS). */
  auth?: AuthLimits;
  /** Where log lines go (JSON lines); stderr when not given. */
  logStream?: { write(line: string): void };
  /** Requests per API key (a token bucket); false turns the limit off. Default: DEFAULT_RATE_LIMIT. */
  rateLimit?: RateLimitSettings | false;
  /** Delivery settings; `allowPrivate` lets webhooks target loopback and private addresses (demos, tests). */
  webhooks?: Omit<WebhookSenderOptions, 'store' | 'clock'>;
  /** The notification fan-out; `autoStart: false` leaves recorded jobs waiting (tests of a restart). */
  fanOut?: Omit<FanOutOptions, 'deps' | 'onError'> & { autoStart?: boolean };
  /** The body deadline and the connections one address may hold before authenticating (DEFAULT_CONNECTION_LIMITS). */
  connections?: ConnectionLimits;
  /** Live streams: the keep-alive interval, how many may be open. */
  live?: LiveStreamLimits;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The notification fan-out worker of this app (`drain()` waits for the jobs due). */
    fanOut: NotificationFanOut;
  }
}

/** Builds the whole API without listening, so that tests can run it in process or on a port. */
export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const clock = options.clock ?? (() => new Date());
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({
    // Logs go to stderr (or the stream given): stdout carries only the server's own lines (`listening on …`). Every
    // request with `logger`, else errors and warnings only: a 500's cause, a 503 `server_busy`, a failed webhook
    // sender or fan-out, are always told.
    logger: { level: options.logger ? 'info' : 'warn', redact: ['req.headers["api-secret"]'], stream: options.logStream ?? process.stderr },
    bodyLimit,
    // A path segment over 1,024 characters is a 414 (uri_too_long).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    // Errors the router raises before any route runs (a malformed path escape) get the contract's shape too; as on
    // every path, a request without valid credentials is told only that (401, its connection closed).
    frameworkErrors: (error, request, rawReply) => {
      const reply = rawReply as unknown as FastifyReply;
      const answer = (thrown: unknown) => {
        const appError = toAppError(thrown as FastifyError, bodyLimit);
        logFailure(request, thrown, appError);
        if (appError.headers) void reply.headers(appError.headers);
        void reply.code(appError.status).header('x-request-id', request.id).send(appError.toBody(request.id));
      };
      // Let in as every request is (`admit`: credentials, the rate, a suspension), then told what the router found.
      admit(request, reply).then(() => answer(error), answer);
    },
    // Errors Node's HTTP parser raises before Fastify sees a request (a malformed request line, Content-Length
    // with Transfer-Encoding, headers or URL over the limit) get the contract's shape too.
    clientErrorHandler: answerClientError,
    return503OnClosing: true,
    // X-Request-Id: the client's when sane, else ours; in every log line (reqId), error body and audit entry.
    genReqId: requestIdOf,
  });
  // First: a request on a connection being closed is not handled at all.
  app.server.on('connect', (_request, socket: import('node:net').Socket) =>
    answerClientError(Object.assign(new Error('CONNECT'), { code: CONNECT }), socket),
  );
  const guard = new ConnectionGuard(options.connections);
  guard.install(app);
  const turnWrites = new TurnWrites();
  let closing = false;
  app.addHook('onRequest', async (request, reply) => {
    // On the raw response, so that streams that take the reply over (SSE) carry it too.
    reply.raw.setHeader('x-request-id', request.id);
    // What other processes committed before this request arrived is seen by it (and its version kept for
    // the rest of this turn of the event loop: one look per request, not one per cache).
    options.store.dataVersion(true);
    turnWrites.reading();
  });
  // The answers of one turn written together, at its end (`TurnWrites`). Once the app closes, each goes at once
  // and its connection is closed after it: an answer still waiting would keep its connection from being idle,
  // so the server's close would not close it and would wait for the client to leave (keep-alive: 72 s).
  app.addHook('onSend', (request, reply, payload, done) => {
    turnWrites.defer(
      () => {
        if (closing) reply.header('connection', 'close');
        done(null, payload);
      },
      (error) => unwritten(app, request, reply.raw, error, bodyLimit),
    );
  });

  const webhookSettings = options.webhooks ?? {};
  const sender = new WebhookSender({
    onError: (error) => app.log.error({ err: error }, 'webhook sender failed'),
    ...webhookSettings,
    store: options.store,
    clock,
  });
  const deps: Deps = { store: options.store, clock, webhooks: sender };
  const fanOut = new NotificationFanOut({
    ...options.fanOut,
    deps,
    onError: (error) => app.log.error({ err: error }, 'notification fan-out failed'),
  });
  deps.notifications = fanOut;
  app.decorate('fanOut', fanOut);
  const live = new LiveStreams(deps, options.live, (error) => app.log.error({ err: error }, 'notification stream failed'));

  // JSON, urlencoded and multipart bodies; nothing else. An empty JSON body (as `PUT …/accept` sends) is no body.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const text = utf8Text(body as Buffer);
    if (text.trim() === '') return done(null, undefined);
    defaultJson(request, text, (error, parsed) => (error ? done(jsonRefusal(error, text)) : done(null, parsed)));
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body, done) => done(null, parseUrlencoded(body as Buffer)));
  // Read whole (within the body limit) and parsed strictly: a body cut short is a 400, not an empty form.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    const boundary = boundaryOf(request.headers['content-type'] ?? '');
    if (!boundary) return done(new AppError(400, ErrorCode.invalidBody, 'A multipart/form-data body needs a boundary in its Content-Type'));
    try {
      done(null, parseMultipart(body as Buffer, boundary));
    } catch (error) {
      done(error as Error);
    }
  });
  // Forms send arrays as repeated `field` or `field[]`.
  app.addHook('preValidation', async (request) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body) || request.headers['content-type']?.includes('json'))
      return;
    for (const key of Object.keys(body)) {
      if (!key.endsWith('[]')) continue;
      const name = key.slice(0, -2);
      const value = body[key];
      // Own keys only: `toString[]` must not pick up the inherited toString.
      const previous = Object.hasOwn(body, name) ? body[name] : undefined;
      // Defined, not assigned: assigning `__proto__` would replace the body's prototype.
      Object.defineProperty(body, name, {
        value: previous === undefined ? value : ([] as unknown[]).concat(previous, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      delete body[key];
    }
  });

  const authenticator = new Authenticator(deps, options.auth);
  const limiter = options.rateLimit === false ? undefined : new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, clock);
  /** The caller of a request's credentials; `again` for one accepted before (a live stream's, `reauthenticate`). */
  const authenticate = (request: FastifyRequest, again = false) => {
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    return authenticator.authenticate(header('api-key'), header('api-secret'), clientOf(request.ip), again);
  };
  /**
   * A request let in, or refused: without valid credentials answered at once, its body never read, its connection
   * closed (docs/security.md), a path no route has (404, 405 for another method) or the router cannot read (400)
   * included: those are told to callers with credentials only. Then the key's rate, then the caller's suspension.
   */
  const admit = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = await authenticate(request).catch((error: unknown) => {
      guard.closeAfter(request.raw.socket, reply);
      throw error;
    });
    const tooMany = guard.authenticatedAs(request.raw.socket, caller.user.id);
    if (tooMany) {
      guard.closeAfter(request.raw.socket, reply);
      throw tooMany;
    }
    // Authenticated: the key is a string.
    const retryAfter = limiter?.take(request.headers['api-key'] as string);
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter));
      throw limiter!.describe(retryAfter);
    }
    requireMayUseApi(caller, clock());
    request.caller = { ...caller, requestId: request.id };
  };
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config?.open) await admit(request, reply);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, bodyLimit);
    logFailure(request, error, appError);
    if (appError.headers) void reply.headers(appError.headers);
    return reply.code(appError.status).send(appError.toBody(request.id));
  });
  // A known path asked with a method it does not take is a 405 naming those it does, for every route registered.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routes.allowedMethods(path);
    if (allowed.length)
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(
          new AppError(405, ErrorCode.methodNotAllowed, `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}`).toBody(
            request.id,
          ),
        );
    return reply.code(404).send(new AppError(404, ErrorCode.routeNotFound, `No route ${request.method} ${path}`).toBody(request.id));
  });

  const routes = new RouteRegistry(
    app,
    { store: deps.store, clock: deps.clock, inFlight: new Map() },
    API_PREFIX,
  );
  const reauthenticate = async (request: FastifyRequest) => {
    const caller = await authenticate(request, true);
    requireMayUseApi(caller, clock());
    return caller;
  };
  const ctx: RouteContext = { routes, deps, reauthenticate, live };
  registerUserRoutes(ctx);
  registerPageRoutes(ctx);
  registerFollowRoutes(ctx);
  registerPermissionRoutes(ctx);
  registerAccessRequestRoutes(ctx);
  registerInviteRoutes(ctx);
  registerRoleRoutes(ctx);
  registerWebhookRoutes(ctx, { allowPrivate: webhookSettings.allowPrivate ?? false });
  registerApiKeyRoutes(ctx);
  registerContentRoutes(ctx);
  registerRemovalRoutes(ctx);
  registerSuspensionRoutes(ctx);
  registerReportRoutes(ctx);
  registerEventRoutes(ctx);
  registerNotificationRoutes(ctx);
  registerModerationRoutes(ctx);
  registerMetaRoutes(ctx);

  // Deliveries start once the server is ready and stop (after attempts under way) when it closes.
  app.addHook('onReady', async () => {
    // PostgreSQL: opens the listener that vouches for remembered callers now, not at the first request, so that
    // the requests of the first moments do not each read their caller again.
    options.store.versionOf(['users']);
    sender.start();
    if (options.fanOut?.autoStart !== false) fanOut.start();
  });
  // Live streams never end by themselves: end them first, so that closing does not wait for listeners.
  app.addHook('preClose', async () => {
    closing = true;
    turnWrites.stop();
    live.closeAll();
  });
  app.addHook('onClose', async () => {
    await Promise.all([sender.stop(), fanOut.stop()]);
  });
  return app;
}

/** A CONNECT request, which Node hands to a 'connect' listener, not to Fastify (without one, it drops the socket). */
const CONNECT = 'AGORA_CONNECT';

/** Answers, in the contract's shape, a request Node's HTTP parser refused (or a CONNECT); then closes the connection. */
function answerClientError(error: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message]: [number, string, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, ErrorCode.headersTooLarge, 'The request line and headers are larger than the server accepts']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, ErrorCode.requestTimeout, 'The request was not received in time']
        : error.code === CONNECT
          ? [405, ErrorCode.methodNotAllowed, 'CONNECT is not allowed: this server is not a proxy']
          : [400, ErrorCode.malformedRequest, 'The request is not valid HTTP/1.1'];
  // No request could be read, so none has an id yet: this answer gets a new one, like every other.
  const requestId = newId();
  const body = JSON.stringify(new AppError(status, code, message).toBody(requestId));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      // A 405 (CONNECT) names the methods taken, as RFC 9110 asks and the app's own 405s do.
      (status === 405 ? 'allow: GET, HEAD, POST, PUT, DELETE\r\n' : '') +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * An answer whose write threw (Fastify throws from `writeHead` on a header it cannot send): logged, and answered
 * with a 500 in the contract's shape as Fastify would have, or, where even that cannot be written (its head gone
 * already), its connection closed. Never left unanswered.
 */
function unwritten(
  app: FastifyInstance,
  request: FastifyRequest,
  raw: ServerResponse,
  error: unknown,
  bodyLimit: number,
): void {
  app.log.error({ err: error, reqId: request.id }, 'writing an answer failed');
  try {
    if (raw.headersSent) throw error;
    const appError = toAppError(error as FastifyError, bodyLimit);
    const body = JSON.stringify(appError.toBody(request.id));
    raw.writeHead(appError.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    raw.end(body);
  } catch {
    raw.destroy();
  }
}
