import { ApiClient, DEFAULT_TIMEOUT_SECONDS, type ClientOptions } from '../client/api-client.js';
import { credentialsPath, readCredentials, type Profile } from './credentials.js';
import { AuthError, UsageError } from './errors.js';
import { Names } from './names.js';
import { Output } from './output.js';
import { selfCommand } from './self-command.js';
import { normalizeUrl, serverUrlProblem } from './server-url.js';
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
  /** The key is AGORA_API_KEY's, not the profile's (a refusal then names no profile to log in again). */
  keyFromEnvironment: boolean;
  /** The public half of the key this run uses (`ak_…`; never the secret). */
  apiKey: string;
}

export interface Target {
  profile: string;
  url: string;
  apiKey?: string;
  apiSecret?: string;
  /** Why there is no key for this server, when a stored one was kept from it (exit 4 with this message). */
  missing?: string;
  /** The key and secret are AGORA_API_KEY's and AGORA_API_SECRET's. */
  fromEnvironment?: boolean;
}

/**
 * Where to send requests and with which key: flags, then environment, then the stored profile. A stored key and
 * secret go only to the server they were stored for (as gh keeps a token per host): `--url` or `AGORA_URL`
 * naming another server takes the profile stored for that one, else AGORA_API_KEY/AGORA_API_SECRET, else none.
 */
export async function resolveTarget(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<Target> {
  const explicit = options.profile ?? env.AGORA_PROFILE;
  const url = options.url ?? env.AGORA_URL;
  // `--url` is checked as it is parsed; AGORA_URL here, before any credentials are looked for.
  const problem = options.url === undefined && env.AGORA_URL ? serverUrlProblem(env.AGORA_URL) : undefined;
  if (problem) throw new UsageError(`AGORA_URL=${env.AGORA_URL}: ${problem}`);
  // A key and a secret make a pair: never one from the environment and the other from the file.
  const fromEnv = !!(env.AGORA_API_KEY || env.AGORA_API_SECRET);
  if (fromEnv && !(env.AGORA_API_KEY && env.AGORA_API_SECRET))
    throw new UsageError('AGORA_API_KEY and AGORA_API_SECRET go together: set both or neither');
  // The environment gives all of it (a script, CI): the file is not read, so a damaged one does not stand in the way.
  const pair = { apiKey: env.AGORA_API_KEY, apiSecret: env.AGORA_API_SECRET, fromEnvironment: true };
  if (!explicit && url && fromEnv) return { profile: 'default', url, ...pair };
  const file = await readCredentials(credentialsPath(env));
  const profile = explicit ?? file.current ?? 'default';
  const stored = file.profiles[profile];
  if (explicit && !stored && !fromEnv)
    throw new UsageError(`No profile named "${profile}": run ${selfCommand()} login --profile ${profile}`);
  if (fromEnv) return { profile, url: url ?? stored?.url ?? DEFAULT_URL, ...pair };
  const pick = (name: string, chosen: Profile | undefined): Target => ({
    profile: name,
    url: url ?? chosen?.url ?? DEFAULT_URL,
    apiKey: chosen?.api_key,
    apiSecret: chosen?.api_secret,
  });
  if (!url || (stored && sameServer(stored.url, url))) return pick(profile, stored);
  if (!explicit) {
    const forServer = Object.entries(file.profiles).find(([, p]) => sameServer(p.url, url));
    if (forServer) return pick(...forServer);
  }
  if (Object.keys(file.profiles).length === 0) return pick(profile, undefined);
  const server = originOf(url);
  const how = `run ${selfCommand()} login --url ${server} --profile NAME, or set AGORA_API_KEY and AGORA_API_SECRET`;
  const elsewhere = stored ? ` (profile "${profile}" is for ${originOf(stored.url)})` : '';
  return {
    profile,
    url,
    missing: explicit
      ? `Profile "${profile}" is stored for ${originOf(stored!.url)}, not ${server}, and its key goes to no other server: ${how}`
      : `No credentials stored for ${server}${elsewhere}: ${how}`,
  };
}

/** Two URLs name the same server when their normalised origins (scheme, host, port) are equal. */
const sameServer = (a: string, b: string): boolean => originOf(a) === originOf(b);

function originOf(url: string): string {
  const normalized = normalizeUrl(url);
  try {
    return new URL(normalized).origin;
  } catch {
    return normalized.toLowerCase();
  }
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
    throw new AuthError(target.missing ?? `Not logged in: run ${selfCommand()} login, or set AGORA_API_KEY and AGORA_API_SECRET`);
  const client = clientFor(options, target);
  const names = new Names(client);
  const out = new Output({ json: !!options.json, names });
  return { client, names, out, profile: target.profile, keyFromEnvironment: !!target.fromEnvironment, apiKey: target.apiKey };
}
