import { mkdirSync } from 'node:fs';
import { chmod, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type Conf from 'conf';
import { selfCommand } from './self-command.js';

export interface Profile {
  url: string;
  api_key: string;
  api_secret: string;
}

export interface CredentialsFile {
  current?: string;
  profiles: Record<string, Profile>;
}

/**
 * The schema of the file: anything else is a damaged file, reported as such rather than half-used. It is checked
 * here rather than through conf's JSON-schema option, whose validator (ajv) costs every command ~50 ms to compile.
 */
export function checkCredentials(value: unknown): CredentialsFile {
  const fail = (what: string): never => {
    throw new CredentialsError(what);
  };
  if (!isObject(value)) return fail('not a JSON object');
  if (value.current !== undefined && typeof value.current !== 'string') fail('"current" is not a string');
  const profiles = value.profiles ?? {};
  if (!isObject(profiles)) return fail('"profiles" is not an object');
  for (const [name, profile] of Object.entries(profiles)) {
    if (!isObject(profile)) fail(`profile "${name}" is not an object`);
    for (const field of PROFILE_FIELDS)
      if (typeof (profile as Record<string, unknown>)[field] !== 'string') fail(`profile "${name}" has no ${field}`);
  }
  return { current: value.current as string | undefined, profiles: profiles as Record<string, Profile> };
}

const PROFILE_FIELDS = ['url', 'api_key', 'api_secret'] as const;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The credentials file could not be read: not JSON, or not the shape agora writes. */
export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/** `$XDG_CONFIG_HOME/agora/credentials.json`, else `~/.config/agora/credentials.json`. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'agora', 'credentials.json');
}

const damaged = (path: string, reason: string) =>
  new CredentialsError(`The credentials file ${path} is damaged (${reason}): repair it, or delete it and run ${selfCommand()} login again`);

/**
 * The profiles on conf: a schema for the contents, atomic writes (a temporary file renamed over the old one),
 * the file readable by its owner only (0600, its folder 0700). Loaded for writes only (login, logout,
 * profiles use): conf brings ajv with it, ~20 ms of parsing that every other command would pay to read a
 * small JSON file.
 */
async function open(path: string): Promise<Conf<CredentialsFile>> {
  const { default: Conf } = await import('conf');
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    return new Conf<CredentialsFile>({
      cwd: dirname(path),
      configName: 'credentials',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      serialize: (value) => `${JSON.stringify(checkCredentials(value), null, 2)}\n`,
      deserialize: (text) => checkCredentials(JSON.parse(text)),
    });
  } catch (error) {
    throw damaged(path, (error as Error).message);
  }
}

/** The stored profiles, checked the same way as conf checks them (no file: none). */
export async function readCredentials(path = credentialsPath()): Promise<CredentialsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw damaged(path, (error as Error).message);
  }
  let file: CredentialsFile;
  try {
    file = checkCredentials(JSON.parse(text));
  } catch (error) {
    throw damaged(path, (error as Error).message);
  }
  await ownerOnly(path);
  return { current: file.current, profiles: file.profiles };
}

/**
 * The file holds secrets: readable by others (copied, or its mode changed by hand), it is made its owner's again,
 * and said so, as it is read (agora writes it 0600).
 */
async function ownerOnly(path: string): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) === 0) return;
  const shown = (mode & 0o777).toString(8);
  try {
    await chmod(path, 0o600);
  } catch (error) {
    // Not ours to change (a read-only mount, such as a Kubernetes secret's, 0644 by default; another owner's file):
    // said, but the credentials are still read, as they were before this look.
    process.stderr.write(`agora: ${path} is readable by others (mode ${shown}) and could not be made 600 (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`);
    return;
  }
  process.stderr.write(`agora: ${path} was readable by others (mode ${shown}); it is now 600\n`);
}

export async function writeCredentials(data: CredentialsFile, path = credentialsPath()): Promise<void> {
  (await open(path)).store = data.current === undefined ? { profiles: data.profiles } : data;
}
