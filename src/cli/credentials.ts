import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Profile {
  url: string;
  api_key: string;
  api_secret: string;
}

export interface CredentialsFile {
  current?: string;
  profiles: Record<string, Profile>;
}

/** `$XDG_CONFIG_HOME/agora/credentials.json`, else `~/.config/agora/credentials.json`. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'agora', 'credentials.json');
}

export async function readCredentials(path = credentialsPath()): Promise<CredentialsFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<CredentialsFile>;
    return { current: parsed.current, profiles: parsed.profiles ?? {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new Error(`Cannot read the credentials file ${path}: ${(error as Error).message}`);
  }
}

/** Written whole to a temporary file and renamed, readable by the owner only (0600, folder 0700). */
export async function writeCredentials(data: CredentialsFile, path = credentialsPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}
