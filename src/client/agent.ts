import { setFlagsFromString } from 'node:v8';
import type { Dispatcher as UndiciDispatcher } from 'undici';
// The parts of undici the client uses, not its index: the index loads fetch, WebSocket, the cache stores, the
// mock agents and Node's own copy of undici besides, ~60 ms of every command's start for nothing it calls.
import connect from 'undici/lib/api/api-connect.js';
import request from 'undici/lib/api/api-request.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import type { Proxy } from './proxy.js';

// What the index does to every dispatcher (`Object.assign(Dispatcher.prototype, api)`), for the two methods
// used: `request` by the client, `connect` by ProxyAgent to open its tunnel (CONNECT) through a proxy.
Object.assign(Dispatcher.prototype, { request, connect });

/**
 * The run's keep-alive agent, straight to the server or through `proxy` (proxyFor: HTTP(S)_PROXY and NO_PROXY
 * as curl reads them). Through a proxy, an http:// server gets plain requests with an absolute URI, as curl
 * sends them (`proxyTunnel: false`): most forward proxies refuse CONNECT to any port but 443. An https://
 * server still goes through a CONNECT tunnel, so that the proxy sees no more than the host.
 */
export function createAgent(options: { connections: number; connectTimeoutMs: number; proxy?: Proxy }): UndiciDispatcher {
  keepWasmOnBaselineCompiler();
  const agent = { connections: options.connections, keepAliveTimeout: 10_000, connect: { timeout: options.connectTimeoutMs } };
  if (!options.proxy) return new Agent(agent);
  return new ProxyAgent({ ...agent, uri: options.proxy.url, proxyTunnel: false, proxyTls: { timeout: options.connectTimeoutMs } });
}

/**
 * undici parses HTTP with llhttp compiled to WebAssembly, at the first connection. V8 compiles it twice: at
 * once with its baseline compiler (Liftoff), then again with its optimising one (TurboFan) on background
 * threads, ~200 ms of CPU that a command making a few calls never uses and that, on a busy machine, the server
 * answering it waits behind. Measured: a `pages list` run costs 400 ms of CPU with it, 200 ms without. Liftoff's
 * code parses an answer of a few KiB in microseconds, so a bulk import of 10,000 rows loses nothing either.
 * The flag applies to modules compiled after it is set; it is set here, before undici compiles its parser.
 */
function keepWasmOnBaselineCompiler(): void {
  setFlagsFromString('--liftoff-only');
}
