import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Caller } from '../domain/context.js';
import { AppError, ErrorCode, invalidFields } from '../shared/errors.js';
import { encodeCursor, NEXT_PAGE } from '../shared/schemas/common.js';
import type { ResponseCache } from './response-cache.js';
import { withIdempotency, type IdempotencyGuard, type Outcome } from './idempotency.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  method: Method;
  /** Fastify style, relative to the API prefix: `/pages/:page_id`. */
  url: string;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Response schema for the OpenAPI document. */
  response?: z.ZodType;
  status?: number;
  /** Open endpoints need no credentials. */
  open?: boolean;
  /**
   * A read whose answer depends only on the stored data, the caller and the URL (not on the clock) may be
   * answered from the exact response cache.
   */
  cacheable?: boolean;
  /** The handler takes the reply over (a live stream) and answers by itself. */
  stream?: boolean;
}

export interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  caller: Caller;
  request: FastifyRequest;
  reply: FastifyReply;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    open?: boolean;
  }
}

const fieldsOf = (error: z.ZodError) =>
  error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join('.') : 'body',
    message: issue.message,
  }));

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body)))
    throw new AppError(400, ErrorCode.invalidBody, 'The request body must be an object of fields');
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw invalidFields(fieldsOf(result.error));
  return result.data;
}

function parseQuery<T>(schema: z.ZodType<T>, query: unknown): T {
  const given = (query ?? {}) as Record<string, unknown>;
  if (given.cursor !== undefined && given.page !== undefined)
    throw new AppError(400, ErrorCode.invalidQuery, 'cursor and page cannot be used together: a cursor already says where the page starts');
  const result = schema.safeParse(query ?? {});
  if (!result.success)
    throw new AppError(
      400,
      ErrorCode.invalidQuery,
      // Messages of shared pieces (pagination) name their parameter already; the others get it in front.
      fieldsOf(result.error)
        .map((f) => (f.message.startsWith(f.field) ? f.message : `${f.field}: ${f.message}`))
        .join('; '),
    );
  return result.data;
}

/**
 * Fastify applies its body limit to the bodies it reads itself, but multipart streams past it: an announced
 * length over the limit is refused before anything is read. So is a multipart body without the boundary that
 * delimits its parts, which the multipart parser reports as a bare Error (a 500).
 */
function refuseUnreadableBody(request: FastifyRequest, bodyLimit: number): void {
  if (Number(request.headers['content-length']) > bodyLimit)
    throw new AppError(413, ErrorCode.payloadTooLarge, `The request body is larger than the limit of ${bodyLimit} bytes`);
  const type = request.headers['content-type'] ?? '';
  if (!/^\s*multipart\/form-data\b/i.test(type)) return;
  if (!/;\s*boundary=("[^"]+"|[^\s;"]+)/i.test(type))
    throw new AppError(400, ErrorCode.invalidBody, 'A multipart/form-data body needs a boundary in its Content-Type');
  // The multipart parser reads the raw stream, past Fastify's body limit: only a declared length keeps it bounded.
  if (request.headers['content-length'] === undefined)
    throw new AppError(411, ErrorCode.lengthRequired, 'A multipart/form-data body needs a Content-Length header');
}

/** The `Link: <…>; rel="next"` value of a list answer with more rows, or undefined. */
function nextLink(url: string, body: unknown): string | undefined {
  const next = body && typeof body === 'object' ? (body as { [NEXT_PAGE]?: string[] })[NEXT_PAGE] : undefined;
  if (!next) return undefined;
  const [path, search = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(search);
  params.delete('page');
  params.set('cursor', encodeCursor(next));
  return `<${path}?${params.toString()}>; rel="next"`;
}

/** Collects route specs as they are registered, for the OpenAPI document. */
export class RouteRegistry {
  readonly specs: RouteSpec<z.ZodType, z.ZodType, z.ZodType>[] = [];

  constructor(
    private readonly app: FastifyInstance,
    private readonly idempotency: IdempotencyGuard,
    private readonly prefix: string,
    private readonly cache?: ResponseCache,
  ) {}

  /** A thin handler: parse with the shared schemas, call the domain, send what it returns. */
  add<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined>(
    spec: RouteSpec<B, Q, P>,
    handler: (input: RouteInput<z.output<B>, z.output<Q>, z.output<P>>) => Promise<unknown>,
  ): void {
    this.specs.push(spec as unknown as RouteSpec<z.ZodType, z.ZodType, z.ZodType>);
    const status = spec.status ?? (spec.method === 'POST' ? 201 : 200);
    const bodyLimit = this.app.initialConfig.bodyLimit ?? Infinity;
    this.app.route({
      method: spec.method,
      url: this.prefix + spec.url,
      config: { open: spec.open ?? false },
      preParsing: async (request) => refuseUnreadableBody(request, bodyLimit),
      handler: async (request, reply) => {
        const cached = spec.cacheable && request.caller ? this.cache?.lookup(request.caller.user.id, request.url) : undefined;
        if (cached && 'json' in cached) {
          if (cached.link) reply.header('link', cached.link);
          return reply.code(status).type('application/json; charset=utf-8').send(cached.json);
        }
        const input = {
          body: (spec.body ? parseBody(spec.body, request.body) : undefined) as z.output<B>,
          query: (spec.query ? parseQuery(spec.query, request.query) : undefined) as z.output<Q>,
          params: (spec.params ? parseQuery(spec.params, request.params) : request.params) as z.output<P>,
          caller: request.caller as Caller,
          request,
          reply,
        };
        if (spec.stream) {
          await handler(input);
          return reply;
        }
        const run = async (): Promise<Outcome> => ({ status, body: await handler(input) });
        const result =
          spec.method === 'POST' && request.caller ? await withIdempotency(this.idempotency, request, run) : await run();
        if (result.replayed) reply.header('idempotent-replayed', 'true');
        if (result.status === 204 || result.body === undefined) return reply.code(204).send();
        const link = nextLink(request.url, result.body);
        if (link) reply.header('link', link);
        if (cached) {
          const json = JSON.stringify(result.body);
          cached.remember(json, link);
          return reply.code(result.status).type('application/json; charset=utf-8').send(json);
        }
        return reply.code(result.status).send(result.body);
      },
    });
  }
}
