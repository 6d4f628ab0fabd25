import { setFlagsFromString } from 'node:v8';
import type { Dispatcher as UndiciDispatcher } from 'undici';
// The parts of undici the client uses, not its index: the index loads fetch, WebSocket, the cache stores, the
// mock agents and Node's own copy of undici besides, ~60 ms of every command's start for nothing it calls.
import connect from 'undici/lib/api/api-connect.js';
import request from 'undici/lib/api/api-request.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

// What the index does to every dispatcher (`Object.assign(Dispatcher.prototype, api)`), for the two methods
// used: `request` by the client, `connect` by ProxyAgent to open its tunnel (CONNECT) through a proxy.
Object.assign(Dispatcher.prototype, { request, connect });

/**
 * The run's keep-alive agent. EnvHttpProxyAgent reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY (either case) as
 * curl and other CLIs do, and sends everything else straight to the server.
 */
export function createAgent(options: { connections: number; connectTimeoutMs: number }): UndiciDispatcher {
  keepWasmOnBaselineCompiler();
  return new EnvHttpProxyAgent({
    connections: options.connections,
    keepAliveTimeout: 10_000,
    connect: { timeout: options.connectTimeoutMs },
  });
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
