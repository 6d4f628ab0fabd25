import { API_PREFIX } from './api-client.js';

export interface StreamTarget {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
}

export interface ServerSentEvent {
  event: string;
  id?: string;
  data: string;
}

export interface EventStreamHandlers {
  onEvent(event: ServerSentEvent): void;
  /** The connection opened (again): what happened while it was down may need a fresh look. */
  onOpen?(): void;
  /** It failed or ended; it reconnects by itself (after the server's `retry`) until closed. */
  onError?(error: Error): void;
}

/**
 * A Server-Sent Events reader of the API (`GET …/notifications/stream`): parses events, reconnects after a
 * drop with `Last-Event-ID` so nothing is lost, and stops on `close()`. Kept apart from the request/answer
 * client, whose transport may change without it.
 */
export function openEventStream(target: StreamTarget, path: string, handlers: EventStreamHandlers): { close(): void } {
  let closed = false;
  let lastEventId: string | undefined;
  let retryMs = 2000;
  let current: { destroy(): void } | undefined;
  let timer: NodeJS.Timeout | undefined;

  const reconnect = (error: Error) => {
    if (closed) return;
    handlers.onError?.(error);
    timer = setTimeout(connect, retryMs);
  };

  async function connect(): Promise<void> {
    const url = new URL(target.baseUrl.replace(/\/+$/, '') + API_PREFIX + path);
    const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    if (closed) return;
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      'api-key': target.apiKey,
      'api-secret': target.apiSecret,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    };
    const req = request(url, { method: 'GET', headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reconnect(new Error(`the live stream answered HTTP ${res.statusCode}`));
      }
      handlers.onOpen?.();
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk.replace(/\r\n?/g, '\n');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = parseBlock(block);
          if (event.retry !== undefined) retryMs = event.retry;
          if (event.id !== undefined) lastEventId = event.id;
          if (event.data !== undefined) handlers.onEvent({ event: event.event ?? 'message', id: event.id, data: event.data });
        }
      });
      res.on('end', () => reconnect(new Error('the live stream ended')));
      res.on('error', (error) => reconnect(error));
    });
    req.on('error', (error) => reconnect(error));
    req.end();
    current = req;
  }

  void connect();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      current?.destroy();
    },
  };
}

/** One event's lines (`field: value`); comment lines (`: keep-alive`) are skipped. */
function parseBlock(block: string): { event?: string; id?: string; data?: string; retry?: number } {
  const parsed: { event?: string; id?: string; data?: string; retry?: number } = {};
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const at = line.indexOf(':');
    const field = at === -1 ? line : line.slice(0, at);
    const value = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '');
    if (field === 'data') parsed.data = parsed.data === undefined ? value : `${parsed.data}\n${value}`;
    else if (field === 'event') parsed.event = value;
    else if (field === 'id') parsed.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) parsed.retry = Number(value);
  }
  return parsed;
}
