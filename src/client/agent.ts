import { EnvHttpProxyAgent, type Dispatcher } from 'undici';

/**
 * The run's keep-alive agent. EnvHttpProxyAgent reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY (either case) as
 * curl and other CLIs do, and sends everything else straight to the server.
 */
export function createAgent(options: { connections: number; connectTimeoutMs: number }): Dispatcher {
  return new EnvHttpProxyAgent({
    connections: options.connections,
    keepAliveTimeout: 10_000,
    connect: { timeout: options.connectTimeoutMs },
  });
}
