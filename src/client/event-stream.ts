import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { ApiError, type ApiClient } from './api-client.js';

export interface ServerSentEvent {
  event: string;
  id?: string;
  data: string;
}

/** The most a stream may hold back unfinished (a line, or an event's data lines) before it counts as broken. */
const MAX_PENDING_CHARS = 1024 * 1024;

/**
 * The events of a text/event-stream body, by eventsource-parser (the WHATWG rules: `\r\n`, `\r` and `\n`
 * end a line wherever the chunks split them, an `id` holding NUL is ignored); comments and `retry:` are skipped.
 */
export async function* parseEventStream(body: Readable): AsyncGenerator<ServerSentEvent> {
  const ready: ServerSentEvent[] = [];
  let broken: Error | undefined;
  const parser = createParser({
    maxBufferSize: MAX_PENDING_CHARS,
    onEvent: ({ event, id, data }) => ready.push({ event: event ?? 'message', id, data }),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') broken = new Error('the live stream sent an event too large to read');
    },
  });
  // Decoded as one stream: a character split across two chunks stays whole.
  const decoder = new TextDecoder();
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (broken) throw broken;
    yield* ready.splice(0);
  }
}

export interface LiveOptions {
  signal?: AbortSignal;
  /** Resume after this event (the last one seen). */
  lastEventId?: string;
  /** The stream opened (again): what happened while it was down may need a fresh look. */
  onOpen?: () => void;
  /** It dropped; it reopens by itself after a short pause (growing with each failure in a row). */
  onDrop?: (error: unknown) => void;
}

/**
 * The events of a live stream of the API for as long as `signal` allows: reopened after a drop with
 * `Last-Event-ID`, so nothing is lost or repeated across reconnections. A refusal (an ApiError: 401, 403,
 * 404) ends it, since trying again would not change it; one that says to retry later (429, 503: a server shutting
 * down, or holding as many streams as it can) is a drop like any other.
 */
export async function* liveEvents(client: ApiClient, path: string, options: LiveOptions = {}): AsyncGenerator<ServerSentEvent> {
  let last = options.lastEventId;
  for (let failures = 0; !options.signal?.aborted; ) {
    try {
      const body = await client.openStream(path, { headers: last ? { 'last-event-id': last } : {}, signal: options.signal });
      failures = 0;
      options.onOpen?.();
      for await (const event of parseEventStream(body)) {
        // The server ended it for good (the caller suspended, their key revoked): a refusal, not a drop.
        if (event.event === 'ended') throw endedBy(event.data);
        last = event.id ?? last;
        yield event;
      }
      if (options.signal?.aborted) return;
      options.onDrop?.(new Error('the live stream ended'));
    } catch (error) {
      if (options.signal?.aborted) return;
      const refused = error as { name?: string; status?: number };
      if (refused.name === 'ApiError' && refused.status !== 429 && refused.status !== 503) throw error;
      options.onDrop?.(error);
    }
    failures += 1;
    await new Promise<void>((ok) => {
      const timer = setTimeout(ok, Math.min(10_000, 500 * 2 ** Math.min(failures, 5)));
      options.signal?.addEventListener('abort', () => (clearTimeout(timer), ok()), { once: true });
    });
  }
}

/** The refusal an `ended` event carries (the error's body), as the refusal of a request would be thrown. */
function endedBy(data: string): ApiError {
  let body: { error?: { code?: unknown; message?: unknown } } = {};
  try {
    body = JSON.parse(data);
  } catch {
    // Not the API's: said as a refusal without a reason.
  }
  const code = typeof body.error?.code === 'string' ? body.error.code : 'forbidden';
  const message = typeof body.error?.message === 'string' ? body.error.message : 'The server ended the live stream';
  return new ApiError(code === 'unauthorized' ? 401 : 403, code, message, { error: { code, message } });
}

/** A user's notifications as they come (see liveEvents). */
export async function* watchNotifications(
  client: ApiClient,
  userId: string,
  options: LiveOptions = {},
): AsyncGenerator<{ id: string; data: unknown }> {
  const { notificationSchema, mismatch } = await import('./responses.js');
  const schema = await notificationSchema();
  const path = `/users/${encodeURIComponent(userId)}/notifications/stream`;
  for await (const event of liveEvents(client, path, options)) {
    if (event.event !== 'notification') continue;
    // Each record is checked like any answer: something else is reported, not printed half-understood.
    let data: unknown;
    let problem: string | undefined;
    try {
      data = JSON.parse(event.data);
      problem = mismatch(schema, data);
    } catch {
      problem = 'not JSON';
    }
    if (problem)
      throw new ApiError(200, 'invalid_response', `The server at ${client.shownUrl} sent a notification on GET ${path} that is not the API's (${problem})`, {
        error: { code: 'invalid_response', message: `notification on GET ${path}: ${problem}` },
      });
    yield { id: event.id ?? '', data };
  }
}

export interface EventStreamHandlers {
  onEvent(event: ServerSentEvent): void;
  /** The connection opened (again): what happened while it was down may need a fresh look. */
  onOpen?(): void;
  /** It failed or ended (it reconnects by itself unless the server refused it). */
  onError?(error: unknown): void;
}

/** liveEvents with callbacks, for a screen that keeps running while events come (`agora queue`). */
export function openEventStream(client: ApiClient, path: string, handlers: EventStreamHandlers): { close(): void } {
  const stop = new AbortController();
  void (async () => {
    try {
      for await (const event of liveEvents(client, path, { signal: stop.signal, onOpen: handlers.onOpen, onDrop: handlers.onError }))
        handlers.onEvent(event);
    } catch (error) {
      handlers.onError?.(error);
    }
  })();
  return { close: () => stop.abort() };
}
