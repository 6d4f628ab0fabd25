import type { Readable } from 'node:stream';
import type { ApiClient } from './api-client.js';

export interface ServerSentEvent {
  event: string;
  id?: string;
  data: string;
}

/** Splits a text/event-stream body into events (comment lines and `retry:` are skipped). */
export async function* parseEventStream(body: Readable): AsyncGenerator<ServerSentEvent> {
  let buffer = '';
  // Decoded as one stream: a character split across two chunks stays whole.
  const decoder = new TextDecoder();
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    buffer += (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: ServerSentEvent = { event: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const at = line.indexOf(':');
        const field = at === -1 ? line : line.slice(0, at);
        const value = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '');
        if (field === 'event') event.event = value;
        else if (field === 'id') event.id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0) continue;
      event.data = data.join('\n');
      yield event;
    }
  }
}

/**
 * A user's notifications as they come, for as long as `signal` allows: the stream is reopened after a drop
 * with `Last-Event-ID`, so nothing is lost or repeated across reconnections. `onDrop` hears each drop
 * (and decides nothing: the stream always tries again, after a short pause).
 */
export async function* watchNotifications(
  client: ApiClient,
  userId: string,
  options: { signal?: AbortSignal; lastEventId?: string; onDrop?: (error: unknown) => void } = {},
): AsyncGenerator<{ id: string; data: unknown }> {
  let last = options.lastEventId;
  for (let failures = 0; !options.signal?.aborted; ) {
    try {
      const body = await client.openStream(`/users/${encodeURIComponent(userId)}/notifications/stream`, {
        headers: last ? { 'last-event-id': last } : {},
        signal: options.signal,
      });
      failures = 0;
      for await (const event of parseEventStream(body)) {
        if (event.event !== 'notification') continue;
        last = event.id ?? last;
        yield { id: event.id ?? '', data: JSON.parse(event.data) as unknown };
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      // Refusals (403, 404, 401) will not change by trying again.
      if ((error as { name?: string }).name === 'ApiError') throw error;
      options.onDrop?.(error);
    }
    failures += 1;
    await new Promise((ok) => setTimeout(ok, Math.min(10_000, 500 * 2 ** Math.min(failures, 5))));
  }
}
