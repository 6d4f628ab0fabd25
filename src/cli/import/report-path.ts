import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';

/**
 * Where an import keeps its report when `--report` is not given (docs/architecture.md, "The client and the CLI"): under
 * `$XDG_STATE_HOME/agora/imports/` (else `~/.local/state/…`), named after the file and a digest of its full path,
 * so that `--resume` of the same file finds it and two files of one name in two folders do not share one.
 */
export async function defaultReport(file: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  const dir = join(state, 'agora', 'imports');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const source = file === '-' ? 'stdin' : resolve(file);
  const name = file === '-' ? 'stdin' : basename(file).replace(/[^\w.-]+/g, '_');
  return join(dir, `${name}-${createHash('sha256').update(source).digest('hex').slice(0, 8)}.report.ndjson`);
}
