import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useServer } from '../helpers/server.js';
import { envFor, freshHome } from './support.js';

/**
 * HTTP_PROXY as most forward proxies are set up (Squid's default `deny CONNECT !SSL_ports`): plain requests with
 * an absolute URI are forwarded, CONNECT is refused. The CLI must reach an http:// server through such a proxy.
 */
const server = useServer();

interface ForwardProxy {
  url: string;
  /** What reached the proxy: `GET http://host:port/path` or `CONNECT host:port`, in order. */
  seen: string[];
  close(): Promise<void>;
}

async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const proxy: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  proxy.on('connect', (req, socket) => {
    seen.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((ok) => (proxy.closeAllConnections(), proxy.close(() => ok()))),
  };
}

let proxy: ForwardProxy;
let home: string;
beforeAll(async () => {
  proxy = await startForwardProxy();
  home = freshHome(server);
});
afterAll(() => proxy?.close());

/** The proxy variables of this run only (whatever the machine running the tests has set). */
const proxyEnv = (vars: Record<string, string>) => ({
  ...envFor(server),
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
  ...vars,
});

describe('HTTP_PROXY and NO_PROXY', () => {
  it('reaches an http:// server with plain absolute-URI requests through a proxy that refuses CONNECT', async () => {
    const from = proxy.seen.length;
    const listed = await runCli(['pages', 'list', '--json'], { home, env: proxyEnv({ HTTP_PROXY: proxy.url }) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveProperty('total_items');
    const seen = proxy.seen.slice(from);
    expect(seen.length).toBeGreaterThan(0);
    for (const line of seen) expect(line).toMatch(new RegExp(`^GET ${server.url}/public-api/v1/`));
  });

  it('goes straight to a host NO_PROXY names (a host:port entry only for that port)', async () => {
    const port = new URL(server.url).port;
    const from = proxy.seen.length;
    const direct = await runCli(['pages', 'list'], { home, env: proxyEnv({ http_proxy: proxy.url, NO_PROXY: `example.org, 127.0.0.1:${port}` }) });
    expect(direct.code, direct.stderr).toBe(0);
    expect(proxy.seen.length).toBe(from);
    const otherPort = await runCli(['pages', 'list'], { home, env: proxyEnv({ http_proxy: proxy.url, no_proxy: '127.0.0.1:1' }) });
    expect(otherPort.code, otherPort.stderr).toBe(0);
    expect(proxy.seen.length).toBeGreaterThan(from);
  });

  it('opens a CONNECT tunnel for an https:// server, and names the proxy that refused it', async () => {
    const from = proxy.seen.length;
    const refused = await runCli(['pages', 'list', '--url', 'https://agora.example.org'], { home, env: proxyEnv({ HTTPS_PROXY: proxy.url }) });
    expect(refused.code).toBe(1);
    expect(proxy.seen.slice(from)).toEqual(['CONNECT agora.example.org:443']);
    expect(refused.stderr).toBe(
      `error: Cannot reach the agora server at https://agora.example.org through the proxy ${proxy.url} (HTTPS_PROXY) (Proxy response (403) !== 200 when HTTP Tunneling)\n`,
    );
  });

  it('a proxy that cannot be reached is named, not the server behind it (and not the password in its URL)', async () => {
    const [refused, unknown] = await Promise.all([
      runCli(['pages', 'list'], { home, env: proxyEnv({ HTTP_PROXY: 'http://user:hunter2@127.0.0.1:9' }) }),
      runCli(['pages', 'list', '--timeout', '5'], { home, env: proxyEnv({ HTTP_PROXY: 'http://proxy.invalid:3128' }) }),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('error: Cannot reach the proxy http://127.0.0.1:9 (HTTP_PROXY) (ECONNREFUSED)\n');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: Cannot reach the proxy http:\/\/proxy\.invalid:3128 \(HTTP_PROXY\) \((ENOTFOUND|EAI_AGAIN)\)\n$/);
  });
});
