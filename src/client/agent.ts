import type { Dispatcher } from 'undici';
// The parts of undici the client uses, not its index: the index loads fetch, WebSocket, the cache stores, the
// mock agents and Node's own copy of undici besides, ~60 ms of every command's start for nothing it calls.
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import request from 'undici/lib/api/api-request.js';

/**
 * The run's keep-alive agent. EnvHttpProxyAgent reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY (either case) as
 * curl and other CLIs do, and sends everything else straight to the server. `request` is undici's own
 * `Dispatcher.request` (the index adds it to every dispatcher's prototype; here to this one).
 */
export function createAgent(options: { connections: number; connectTimeoutMs: number }): Dispatcher {
  const agent = new EnvHttpProxyAgent({
    connections: options.connections,
    keepAliveTimeout: 10_000,
    connect: { timeout: options.connectTimeoutMs },
  });
  return Object.assign(agent, { request });
}
