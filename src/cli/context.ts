import { ApiClient, DEFAULT_TIMEOUT_SECONDS, type ClientOptions } from '../client/api-client.js';
import { credentialsPath, readCredentials } from './credentials.js';
import { AuthError, UsageError } from './errors.js';
import { Names } from './names.js';
import { Output } from './output.js';
import { slowCallSpinner } from './spinner.js';

export const DEFAULT_URL = 'http://127.0.0.1:4010';

export interface GlobalOptions {
  url?: string;
  profile?: string;
  json?: boolean;
  timeout?: number;
}

export interface Context {
  client: ApiClient;
  out: Output;
  names: Names;
  profile: string;
}

export interface Target {
  profile: string;
  url: string;
  apiKey?: string;
  apiSecret?: string;
}

/** Where to send requests and with which key: flags, then environment, then the stored profile. */
export async function resolveTarget(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<Target> {
  const explicit = options.profile ?? env.AGORA_PROFILE;
  // The environment gives all of it (a script, CI): the file is not read, so a damaged one does not stand in the way.
  const url = options.url ?? env.AGORA_URL;
  if (!explicit && url && env.AGORA_API_KEY && env.AGORA_API_SECRET)
    return { profile: 'default', url, apiKey: env.AGORA_API_KEY, apiSecret: env.AGORA_API_SECRET };
  const file = await readCredentials(credentialsPath(env));
  const profile = explicit ?? file.current ?? 'default';
  const stored = file.profiles[profile];
  if (explicit && !stored && !(env.AGORA_API_KEY && env.AGORA_API_SECRET))
    throw new UsageError(`No profile named "${profile}": run agora login --profile ${profile}`);
  // A key and a secret make a pair: never one from the environment and the other from the file.
  const fromEnv = !!(env.AGORA_API_KEY || env.AGORA_API_SECRET);
  if (fromEnv && !(env.AGORA_API_KEY && env.AGORA_API_SECRET))
    throw new UsageError('AGORA_API_KEY and AGORA_API_SECRET go together: set both or neither');
  return {
    profile,
    url: options.url ?? env.AGORA_URL ?? stored?.url ?? DEFAULT_URL,
    apiKey: fromEnv ? env.AGORA_API_KEY : stored?.api_key,
    apiSecret: fromEnv ? env.AGORA_API_SECRET : stored?.api_secret,
  };
}

/**
 * A server URL as people type it: `localhost:4010` is `http://localhost:4010`, and a URL copied with the API's
 * prefix (`…/public-api/v1`) is the server's URL.
 */
export function normalizeUrl(url: string): string {
  let value = url.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) value = `http://${value}`;
  return value.replace(/\/+$/, '').replace(/\/public-api\/v1$/, '');
}

/** `--timeout`, else `AGORA_TIMEOUT`, else 30 s (docs/operations.md, "The client"). */
export function timeoutSeconds(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): number {
  if (options.timeout !== undefined) return options.timeout;
  if (env.AGORA_TIMEOUT === undefined || env.AGORA_TIMEOUT === '') return DEFAULT_TIMEOUT_SECONDS;
  const seconds = Number(env.AGORA_TIMEOUT);
  if (!(seconds > 0) || !Number.isFinite(seconds))
    throw new UsageError(`AGORA_TIMEOUT must be a number of seconds greater than 0, not "${env.AGORA_TIMEOUT}"`);
  return seconds;
}

/** A client for this run: the global timeout, and a spinner on stderr while a call is slow. */
export function clientFor(
  options: GlobalOptions,
  target: Pick<Target, 'url' | 'apiKey' | 'apiSecret'>,
  extra: Partial<ClientOptions> = {},
): ApiClient {
  return new ApiClient({
    baseUrl: normalizeUrl(target.url),
    apiKey: target.apiKey,
    apiSecret: target.apiSecret,
    timeoutSeconds: timeoutSeconds(options),
    observe: slowCallSpinner(),
    ...extra,
  });
}

export async function createContext(options: GlobalOptions): Promise<Context> {
  const target = await resolveTarget(options);
  if (!target.apiKey || !target.apiSecret)
    throw new AuthError('Not logged in: run agora login, or set AGORA_API_KEY and AGORA_API_SECRET');
  const client = clientFor(options, target);
  const names = new Names(client);
  return { client, names, out: new Output({ json: !!options.json, names }), profile: target.profile };
}
