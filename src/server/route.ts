import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Caller } from '../domain/context.js';
import type { ErrorCodeValue } from '../shared/errors.js';
import { encodeCursor, NEXT_PAGE } from '../shared/schemas/common.js';
import { withIdempotency, type IdempotencyGuard, type Outcome } from './idempotency.js';
import { askForBody } from './connection-limits.js';
import type { HEADERS } from './openapi/parts.js';
import { parseBody, parseParams, parseQuery, refuseMalformedQuery, refuseUnreadableBody } from './input.js';

/** The body of a route that takes none: no field at all. */
const NO_BODY = z.object({}).strict();
/** A route that takes no query parameters refuses any, naming it. */
const NO_QUERY = z.object({});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  method: Method;
  /** Fastify style, relative to the API prefix: `/pages/:page_id`. */
  url: string;
  /** The operation's name in the OpenAPI document and the clients generated from it: snake_case, never changed. */
  operationId: string;
  summary: string;
  /** More than the summary says, for the OpenAPI document. */
  description?: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Response schema for the OpenAPI document. */
  response?: z.ZodType;
  status?: number;
  /** Open endpoints need no credentials. */
  open?: boolean;
  /** The handler takes the reply over (a live stream) and answers by itself. */
  stream?: boolean;
  /** The 409 codes the operation may answer, for the OpenAPI document. */
  conflicts?: ErrorCodeValue[];
  /** Headers of the answer beyond every answer's, for the OpenAPI document. */
  headers?: (keyof typeof HEADERS)[];
  /** An answer that is text, not JSON (a stream): per media type, what it holds and an example. */
  text?: Record<string, { description: string; example: string }>;
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

/** The `Link: <…>; rel="next"` value of a list answer with more rows, or undefined. */
function nextLink(url: string, body: unknown): string | undefined {
  const next = body && typeof body === 'object' ? (body as { [NEXT_PAGE]?: string[] | number })[NEXT_PAGE] : undefined;
  if (!next) return undefined;
  const [path, search = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(search);
  if (typeof next === 'number') params.set('page', String(next));
  else {
    params.delete('page');
    params.set('cursor', encodeCursor(next));
  }
  return `<${path}?${params.toString()}>; rel="next"`;
}

/** Collects route specs as they are registered, for the OpenAPI document. */
export class RouteRegistry {
  readonly specs: RouteSpec<z.ZodType, z.ZodType, z.ZodType>[] = [];
  /** Each registered path as a pattern, with its methods: a known path asked with another method is a 405. */
  private readonly methodsByPath = new Map<string, { pattern: RegExp; methods: Set<string> }>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly idempotency: IdempotencyGuard,
    private readonly prefix: string,
  ) {}

  /** The methods a path answers to (empty when no route has that path), for `Allow`. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: m } of this.methodsByPath.values()) if (pattern.test(path)) m.forEach((x) => methods.add(x));
    return [...methods].sort();
  }

  /** A thin handler: parse with the shared schemas, call the domain, send what it returns. */
  add<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined>(
    spec: RouteSpec<B, Q, P>,
    handler: (input: RouteInput<z.output<B>, z.output<Q>, z.output<P>>) => Promise<unknown>,
  ): void {
    this.specs.push(spec as unknown as RouteSpec<z.ZodType, z.ZodType, z.ZodType>);
    const path = this.methodsByPath.get(spec.url) ?? {
      pattern: new RegExp(`^${(this.prefix + spec.url).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`),
      methods: new Set<string>(),
    };
    path.methods.add(spec.method);
    if (spec.method === 'GET') path.methods.add('HEAD');
    this.methodsByPath.set(spec.url, path);
    const status = spec.status ?? (spec.method === 'POST' ? 201 : 200);
    const bodyLimit = this.app.initialConfig.bodyLimit ?? Infinity;
    this.app.route({
      method: spec.method,
      url: this.prefix + spec.url,
      config: { open: spec.open ?? false },
      preParsing: async (request, reply) => {
        refuseUnreadableBody(request, bodyLimit);
        askForBody(request, reply);
      },
      handler: async (request, reply) => {
        refuseMalformedQuery(request.url);
        const input = {
          // A route that takes no body still refuses one with fields (422 naming them): a body sent to the wrong
          // verb (a resolve's `action` to dismiss) is an error, not ignored. Checked only when one came (not on
          // every GET).
          body: (spec.body ? parseBody(spec.body, request.body) : request.body == null ? undefined : void parseBody(NO_BODY, request.body)) as z.output<B>,
          query: parseQuery(spec.query ?? NO_QUERY, request.query) as z.output<Q>,
          params: parseParams(spec.params, request.params) as z.output<P>,
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
        return reply.code(result.status).send(result.body);
      },
    });
  }
}
