import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver does with one request: answer 200, answer 500, or never answer. */
export type Behaviour = 'ok' | 'fail' | 'hang';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived (what the signature covers). */
  rawBody: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: any;
  receivedAt: number;
  behaviour: Behaviour;
}

export interface Receiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  /** Every request received, in order of arrival. */
  requests: ReceivedRequest[];
  /** What to do with requests once the planned ones are used up. */
  setDefault(behaviour: Behaviour): void;
  /** What to do with the next requests, in order (before falling back to the default). */
  plan(...behaviours: Behaviour[]): void;
  /** Polls until `predicate` holds for the requests received so far; fails with them after the deadline. */
  waitFor(
    predicate: (requests: ReceivedRequest[]) => boolean,
    options?: { timeoutMs?: number; what?: string },
  ): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback, port 0, recording each request with its headers and raw body. */
export async function startReceiver(initial: Behaviour = 'ok'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const planned: Behaviour[] = [];
  let fallback: Behaviour = initial;
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const behaviour = planned.shift() ?? fallback;
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
        behaviour,
      });
      if (behaviour === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(behaviour === 'ok' ? 200 : 500, { 'content-type': 'text/plain' });
      res.end(behaviour === 'ok' ? 'ok' : 'receiver failure');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    setDefault: (behaviour) => {
      fallback = behaviour;
    },
    plan: (...behaviours) => {
      planned.push(...behaviours);
    },
    async waitFor(predicate, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 10_000);
      while (!predicate(requests)) {
        if (Date.now() > deadline)
          throw new Error(
            `receiver: gave up waiting for ${options.what ?? 'requests'}; received ${requests.length}: ` +
              JSON.stringify(
                requests.map((r) => ({
                  id: r.headers['webhook-id'],
                  type: r.body?.webhook_type,
                  resource: r.body?.resource,
                  data_id: r.body?.data?.id,
                  behaviour: r.behaviour,
                })),
              ),
          );
        await new Promise((ok) => setTimeout(ok, 50));
      }
      return requests;
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
