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

export type Query = Record<string, string | number | boolean | undefined>;

/**
 * A small typed HTTP client of the API: JSON in, JSON out, error bodies turned into ApiError. It uses
 * Node's built-in fetch (undici inside Node), which loads in a fraction of the time of the undici package:
 * every CLI command pays that cost at start.
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
    const url = new URL(this.baseUrl + API_PREFIX + path);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (this.options.apiKey) headers['api-key'] = this.options.apiKey;
    if (this.options.apiSecret) headers['api-secret'] = this.options.apiSecret;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      text = await response.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ConnectionError(
        `Cannot reach the agora server at ${this.baseUrl} (${cause?.code ?? cause?.message ?? (error as Error).message})`,
      );
    }
    if (response.status >= 400) throw toApiError(response.status, text);
    return (text ? JSON.parse(text) : undefined) as T;
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

/** Path segments are always encoded: ids are opaque. */
export const seg = (value: string): string => encodeURIComponent(value);
