import type { Readable } from 'node:stream';
import { withoutCredentials } from '../shared/url-credentials.js';
import type { Dispatcher } from 'undici';
import type { ErrorBody } from '../shared/errors.js';
import { proxyFor, shownProxy, type Proxy } from './proxy.js';

export const API_PREFIX = '/public-api/v1';
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** An error answered by the API, in the contract's shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: ErrorBody,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server could not be reached at all, did not answer in time, or answered something that is not the API. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  constructor(
    message: string,
    /** False when no connection was ever opened (refused, no such host): the request was not sent, nothing was done. */
    readonly sent = true,
  ) {
    super(message);
  }
}

/** Something the client watches: each call, so that a slow one can show a spinner. */
export type CallObserver = (label: string) => () => void;

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  apiSecret?: string;
  /** Per attempt, from sending to the last byte of the answer. */
  timeoutSeconds?: number;
  /** Attempts of a retryable call, the first included. */
  attempts?: number;
  /** Connections kept open to the server (the pool a bulk import sends over). */
  connections?: number;
  observe?: CallObserver;
  /** Pauses between attempts; tests and benchmarks pass a faster one. */
  sleep?: (ms: number) => Promise<void>;
}

export type Query = Record<string, string | number | boolean | undefined>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A zod schema, as far as the client uses one. */
interface Checker {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

export interface CallInit<T> {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** The answer's schema, when it is not the route's in `responses.ts` (which every other call is checked against). */
  schema?: Checker & { readonly _output?: T };
}

/** What a call answered, with the headers a caller may need (`idempotent-replayed`). */
export interface Answer<T> {
  status: number;
  data: T;
  replayed: boolean;
  /** `X-Total-Count`, on lists that are bare arrays (notifications). */
  total?: number;
  /** The query of the `Link: <…>; rel="next"` URL (docs/api.md), when more records follow. */
  next?: Query;
  /** `Suspension-Lifted` of a lift (`DELETE /users/{id}/suspension`): whether it ended a suspension in force. */
  lifted?: boolean;
}

/** PUT and DELETE are idempotent by definition; a POST only when it carries an Idempotency-Key. */
const RETRYABLE_STATUS = new Set([429, 503]);
/** How long one call waits in all on the 429s that name a Retry-After before it gives up. */
const RATE_LIMITED_WAIT_MS = 5 * 60_000;
const RETRYABLE_CONNECTION = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const MAX_RETRY_AFTER_MS = 60_000;
/** No connection was opened: the request never left. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** Failures to open a connection at all (a timeout too): through a proxy, the proxy is what could not be reached. */
const PROXY_UNREACHABLE = new Set([...NEVER_SENT, 'ETIMEDOUT']);

/**
 * The typed HTTP client of the API, on undici: one keep-alive agent per client (so per run), which honours
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY as other CLIs do; a timeout per attempt; retries of idempotent calls
 * (and of POSTs carrying an Idempotency-Key) after a connection error, a 503 or a 429 (waiting `Retry-After`).
 * undici loads on the first call, so that building a client costs nothing.
 */
export class ApiClient {
  readonly baseUrl: string;
  /** The server as messages name it: without a user and password its URL may carry. */
  readonly shownUrl: string;
  readonly timeoutSeconds: number;
  private agent?: Promise<Dispatcher>;
  private readonly proxy?: Proxy;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.shownUrl = withoutCredentials(this.baseUrl);
    this.timeoutSeconds = options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    this.proxy = URL.canParse(this.baseUrl) ? proxyFor(new URL(this.baseUrl)) : undefined;
  }

  async call<T>(method: Method, path: string, init: CallInit<T> = {}): Promise<T> {
    return (await this.answer(method, path, init)).data;
  }

  /** The call with its status and whether the server replayed an earlier answer to the same Idempotency-Key. */
  async answer<T>(method: Method, path: string, init: CallInit<T> = {}): Promise<Answer<T>> {
    const { status, text, replayed, total, next, lifted } = await this.send(method, path, init, async (body) => body.text());
    if (status >= 400) throw toApiError(status, text);
    const data = (await this.checked(method, path, status, text, init.schema)) as T;
    return { status, data, replayed, total, next, lifted };
  }

  /**
   * The answer's JSON, checked against the shared zod schema of its route: one that does not match is an
   * ApiError `invalid_response` naming what differs, not a crash further on. The JSON is handed on as the
   * server sent it (a schema would drop fields it does not know, and `--json` prints the API's JSON exactly).
   */
  private async checked(method: Method, path: string, status: number, text: string, schema?: Checker): Promise<unknown> {
    const { expectedAnswer, mismatch } = await import('./responses.js');
    const expected = schema ?? (await expectedAnswer(method, path));
    if (expected === undefined) throw new Error(`agora has no schema for the answer to ${method} ${path} (src/client/responses.ts)`);
    const invalid = (what: string) =>
      new ApiError(status, 'invalid_response', `The server at ${this.shownUrl} answered ${method} ${path} with ${what}`, {
        error: { code: 'invalid_response', message: `answer to ${method} ${path}: ${what}` },
      });
    if (!text) {
      if (expected === 'none' || expected === 'any') return undefined;
      throw invalid('an empty body');
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw invalid(`something that is not JSON: ${JSON.stringify(text.slice(0, 60))}`);
    }
    if (expected === 'none' || expected === 'any') return json;
    const problem = mismatch(expected, json);
    if (problem) throw invalid(`a body that is not the API's (${problem})`);
    return json;
  }

  /**
   * A streamed answer (an export), handed over as it arrives; errors are read whole and thrown as ApiError. Its
   * rows are not checked one by one (a file of a million users passes through); its media type is, so that a
   * page from a proxy or a captive portal is not saved as an export.
   */
  async download(path: string, query: Query, mediaTypes: string[]): Promise<Readable> {
    const { status, text, stream, mediaType } = await this.send('GET', path, { query }, async (body, status) =>
      status >= 400 ? body.text() : undefined,
    );
    if (status >= 400) throw toApiError(status, text ?? '');
    if (!mediaTypes.includes(mediaType ?? '')) {
      // Not read: closed (its 'error' on closing is expected, not a failure to report).
      stream!.on('error', () => undefined).destroy();
      const what = `${mediaType || 'no media type'} where ${mediaTypes.join(' or ')} was due`;
      throw new ApiError(status, 'invalid_response', `The server at ${this.shownUrl} answered GET ${path} with ${what}`, {
        error: { code: 'invalid_response', message: `answer to GET ${path}: ${what}` },
      });
    }
    return stream!;
  }

  /**
   * A long-lived answer (Server-Sent Events): no overall timeout, but the body may stay silent for
   * `idleSeconds` at most (the server sends a comment line every 15 s). No retries: the caller reconnects.
   */
  async openStream(path: string, init: { headers?: Record<string, string>; signal?: AbortSignal; idleSeconds?: number } = {}): Promise<Readable> {
    const url = this.url(path);
    const headers: Record<string, string> = { accept: 'text/event-stream', ...init.headers };
    if (this.options.apiKey) headers['api-key'] = this.options.apiKey;
    if (this.options.apiSecret) headers['api-secret'] = this.options.apiSecret;
    const dispatcher = await this.dispatcher();
    let res: Dispatcher.ResponseData;
    try {
      res = await dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'GET',
        headers,
        signal: init.signal,
        headersTimeout: this.timeoutSeconds * 1000,
        bodyTimeout: (init.idleSeconds ?? 60) * 1000,
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw this.unreachable(error, !NEVER_SENT.has((error as NodeJS.ErrnoException).code ?? ''));
    }
    if (res.statusCode >= 400) throw toApiError(res.statusCode, await res.body.text());
    return res.body;
  }

  get<T>(path: string, query?: Query, schema?: CallInit<T>['schema']): Promise<T> {
    return this.call<T>('GET', path, { query, schema });
  }
  post<T>(path: string, body: unknown, headers?: Record<string, string>): Promise<T> {
    return this.call<T>('POST', path, { body, headers });
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('PUT', path, { body });
  }
  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  /** Closes the kept-alive connections, so that the process exits as soon as its work is done. */
  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    if (agent) await (await agent).destroy();
  }

  private dispatcher(): Promise<Dispatcher> {
    this.agent ??= import('./agent.js').then(({ createAgent }) =>
      createAgent({ connections: this.options.connections ?? 16, connectTimeoutMs: this.timeoutSeconds * 1000, proxy: this.proxy }),
    );
    return this.agent;
  }

  /**
   * A call that got no answer, named by where it failed: through a proxy every connection is the proxy's, so
   * one that could not be opened names the proxy (and the variable that set it), not the server behind it.
   */
  private unreachable(error: unknown, sent: boolean): ConnectionError {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    // An aborted request's code says less than its message (a proxy refusing CONNECT: "Proxy response (403) …").
    const why = code && code !== 'UND_ERR_ABORTED' ? code : (error as Error).message;
    if (!this.proxy) return new ConnectionError(`Cannot reach the agora server at ${this.shownUrl} (${why})`, sent);
    const proxy = `the proxy ${shownProxy(this.proxy)} (${this.proxy.variable})`;
    if (PROXY_UNREACHABLE.has(code)) return new ConnectionError(`Cannot reach ${proxy} (${why})`, sent);
    // The proxy took the connection: whether it passed the request on is not known.
    return new ConnectionError(`Cannot reach the agora server at ${this.shownUrl} through ${proxy} (${why})`);
  }

  private url(path: string, query: Query = {}): URL {
    let url: URL;
    try {
      url = new URL(this.baseUrl + API_PREFIX + path);
    } catch {
      throw new ConnectionError(`Not a valid server URL: ${this.shownUrl}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConnectionError(`Not an http(s) server URL: ${this.shownUrl}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /**
   * One call with its retries. `read` consumes the body inside the attempt's timeout; when it returns
   * undefined the body is left unread and handed back as a stream (its timeout then covers the whole download).
   */
  private async send<R>(
    method: Method,
    path: string,
    init: CallInit<unknown>,
    read: (body: Dispatcher.ResponseData['body'], status: number) => Promise<R>,
  ): Promise<{ status: number; text: R; replayed: boolean; total?: number; next?: Query; lifted?: boolean; stream?: Readable; mediaType?: string }> {
    const url = this.url(path, init.query);
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (this.options.apiKey) headers['api-key'] = this.options.apiKey;
    if (this.options.apiSecret) headers['api-secret'] = this.options.apiSecret;
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const retryable = method !== 'POST' || !!headers['idempotency-key'];
    const attempts = retryable ? Math.max(1, this.options.attempts ?? 5) : 1;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((ok) => setTimeout(ok, ms)));
    const dispatcher = await this.dispatcher();
    const done = this.options.observe?.(`${method} ${url.pathname.slice(API_PREFIX.length)}`);
    // A 429 that says when to come back is the server pacing its callers, not a failure: it uses up no attempt,
    // until the waits it asked for add up to RATE_LIMITED_WAIT_MS (an import at full speed against a small bucket
    // slows to the bucket's rate and finishes, instead of failing the rows that lost the race five times).
    let limitedWait = 0;
    // Whether an attempt may have reached the server: a later one refused its connection says nothing of it.
    let maybeSent = false;
    try {
      for (let attempt = 1; ; attempt++) {
        const timeoutMs = this.timeoutSeconds * 1000;
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), timeoutMs);
        try {
          const res = await dispatcher.request({
            origin: url.origin,
            path: url.pathname + url.search,
            method,
            headers,
            body: payload,
            signal: abort.signal,
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          });
          const paced = retryable && res.statusCode === 429 && res.headers['retry-after'] !== undefined && limitedWait < RATE_LIMITED_WAIT_MS;
          const last = attempt >= attempts;
          if (RETRYABLE_STATUS.has(res.statusCode) && (!last || paced)) {
            await res.body.dump();
            clearTimeout(timer);
            const pause = pauseBefore(attempt, res.headers['retry-after']);
            if (paced) {
              limitedWait += pause;
              attempt--;
            }
            await sleep(pause);
            continue;
          }
          const text = await read(res.body, res.statusCode);
          const replayed = res.headers['idempotent-replayed'] === 'true';
          if (text === undefined) {
            // A stream outlives this function: its timer is the whole download's, cleared when it ends.
            res.body.once('close', () => clearTimeout(timer));
            const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
            return { status: res.statusCode, text, replayed, stream: res.body, mediaType };
          }
          clearTimeout(timer);
          const total = Number(res.headers['x-total-count']);
          const next = nextLink(res.headers.link);
          const said = res.headers['suspension-lifted'];
          const lifted = said === 'true' ? true : said === 'false' ? false : undefined;
          return { status: res.statusCode, text, replayed, ...(Number.isInteger(total) ? { total } : {}), ...(next ? { next } : {}), ...(lifted === undefined ? {} : { lifted }) };
        } catch (error) {
          clearTimeout(timer);
          if (abort.signal.aborted)
            throw new ConnectionError(
              `No answer from ${url.origin}${url.pathname} after ${this.timeoutSeconds} s (raise it with --timeout or AGORA_TIMEOUT)`,
            );
          const code = (error as NodeJS.ErrnoException).code ?? '';
          maybeSent ||= !NEVER_SENT.has(code);
          if (RETRYABLE_CONNECTION.has(code) && attempt < attempts) {
            await sleep(pauseBefore(attempt, undefined));
            continue;
          }
          if (error instanceof ApiError || error instanceof ConnectionError) throw error;
          throw this.unreachable(error, maybeSent);
        }
      }
    } finally {
      done?.();
    }
  }
}

/** `Retry-After` (seconds or an HTTP date) when the server gave one, else exponential backoff with jitter. */
export function pauseBefore(attempt: number, retryAfter: string | string[] | undefined, now = Date.now()): number {
  const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  if (header !== undefined) {
    const seconds = Number(header);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
  }
  const base = Math.min(100 * 2 ** (attempt - 1), 5000);
  return base / 2 + Math.random() * (base / 2);
}

/** The query of the `rel="next"` target of a `Link` header (RFC 8288), if there is one. */
export function nextLink(header: string | string[] | undefined): Query | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return undefined;
  for (const part of value.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match || !/;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(match[2]!)) continue;
    const url = new URL(match[1]!, 'http://link.invalid');
    return Object.fromEntries(url.searchParams);
  }
  return undefined;
}

function toApiError(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as ErrorBody;
    if (body?.error?.code) return new ApiError(status, body.error.code, body.error.message, body);
  } catch {
    // not JSON: fall through
  }
  const body = { error: { code: `http_${status}`, message: text.slice(0, 200) || `HTTP ${status}` } };
  return new ApiError(status, body.error.code, body.error.message, body);
}

/** Path segments are always encoded: ids are opaque. */
export const seg = (value: string): string => encodeURIComponent(value);
