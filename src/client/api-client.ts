import type { ErrorBody } from '../shared/errors.js';

export const API_PREFIX = '/public-api/v1';

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

/** The server could not be reached at all. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  apiSecret?: string;
}

export type Query = Record<string, string | number | boolean | undefined> & { [FOLLOW_ALL]?: boolean };

/** In a query: follow the list's `Link: rel="next"` to the end and answer every item (the CLI's `--all`). */
export const FOLLOW_ALL = Symbol('follow all');

/**
 * A small typed HTTP client of the API: JSON in, JSON out, error bodies turned into ApiError. It speaks
 * through node:http rather than fetch: every CLI command pays its client's cost at start, and fetch (undici)
 * takes ~70 ms to load and holds the process ~150 ms after the last answer, where node:http costs almost nothing.
 */
export class ApiClient {
  readonly baseUrl: string;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async call<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    init: { query?: Query; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<T> {
    let url: URL;
    try {
      url = new URL(this.baseUrl + API_PREFIX + path);
    } catch {
      throw new ConnectionError(`Not a valid server URL: ${this.baseUrl}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConnectionError(`Not an http(s) server URL: ${this.baseUrl}`);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (this.options.apiKey) headers['api-key'] = this.options.apiKey;
    if (this.options.apiSecret) headers['api-secret'] = this.options.apiSecret;
    const payload = init.body === undefined ? undefined : Buffer.from(JSON.stringify(init.body));
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const first = await this.exchange(url, method, headers, payload);
    if (!init.query?.[FOLLOW_ALL]) return first.body as T;
    // Every page after the first: the envelope's items (or a bare array) added up, the total kept.
    const all = first.body as { items?: unknown[] } | unknown[];
    const items = Array.isArray(all) ? all : (all.items ?? []);
    for (let next = first.next; next; ) {
      const page = await this.exchange(new URL(next, url), 'GET', headers, undefined);
      items.push(...(Array.isArray(page.body) ? page.body : ((page.body as { items?: unknown[] }).items ?? [])));
      next = page.next;
    }
    return all as T;
  }

  /** One request: the parsed body, and the `rel="next"` URL when the list goes on. */
  private async exchange(url: URL, method: string, headers: Record<string, string>, payload: Buffer | undefined) {
    let status: number;
    let text: string;
    let link: string | undefined;
    try {
      ({ status, text, link } = await send(url, method, headers, payload));
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      throw new ConnectionError(`Cannot reach the agora server at ${this.baseUrl} (${e.code ?? e.message})`);
    }
    if (status >= 400) throw toApiError(status, text);
    return { body: (text ? JSON.parse(text) : undefined) as unknown, next: link ? /<([^>]+)>\s*;\s*rel="next"/.exec(link)?.[1] : undefined };
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.call<T>('GET', path, { query });
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

async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: Buffer | undefined,
): Promise<{ status: number; text: string; link?: string }> {
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), link: [res.headers.link].flat()[0] }),
      );
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Path segments are always encoded: ids are opaque. */
export const seg = (value: string): string => encodeURIComponent(value);
