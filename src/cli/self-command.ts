import { realpathSync } from 'node:fs';
import { delimiter, dirname, join, relative, sep } from 'node:path';

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/**
 * How the person who ran this program runs it again, for the next steps it prints (docs/architecture.md, "The client and the CLI"): `agora`
 * when that name on PATH is this very program (a global install), and `npx agora` when the PATH that has it is
 * npx's own (npx puts a link named `agora` in its cache, first on the PATH of this run alone) or inside a checkout
 * of it; else the launcher's path through node.
 */
export function selfCommand(env: NodeJS.ProcessEnv = process.env, launcher = process.argv[1] ?? '', cwd = process.cwd()): string {
  const self = real(launcher);
  if (!self) return 'agora';
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (real(join(dir, 'agora')) === self) return dir.split(sep).includes('_npx') ? 'npx agora' : 'agora';
  }
  // bin/agora.js of a checkout (or of node_modules/agora): `npx agora` finds it from anywhere inside.
  const root = dirname(dirname(self));
  const here = real(cwd) ?? cwd;
  if (here === root || here.startsWith(root + sep)) return 'npx agora';
  if (real(join(here, 'node_modules', '.bin', 'agora')) === self) return 'npx agora';
  const path = relative(here, self);
  return `node ${path && !path.startsWith('..') ? path : self}`;
}

/**
 * Help text with its example lines (`  $ agora …`) written as they run where the reader stands (`npx agora …` in a
 * checkout): the examples are written once, as `agora`, and shown as the next steps are.
 */
export function examplesAsRun(text: string, self?: string): string {
  if (!/^ {2}\$ /m.test(text)) return text;
  const command = self ?? selfCommand();
  if (command === 'agora') return text;
  return text.replace(/^ {2}\$ .*$/gm, (line) => line.replace(/(\$ (?:[A-Z_]+=\S* )*|\| |&& |; |<\()agora(?= )/g, `$1${command}`));
}
