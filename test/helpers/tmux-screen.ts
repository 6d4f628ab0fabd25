import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BIN } from './server.js';

const run = promisify(execFile);

/**
 * A real terminal of a given size (tmux, on a socket of its own) running the `agora` binary, read as a
 * person sees it (`capture-pane`), and typed into key by key.
 */
export async function startTmux(
  args: string[],
  options: { columns: number; rows: number; env: Record<string, string>; exitFile: string },
) {
  const socket = `agora-test-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;
  const tmux = (...a: string[]) => run('tmux', ['-L', socket, ...a]);
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const exports = Object.entries(options.env).map(([k, v]) => `${k}=${quote(v)}`).join(' ');
  const command = `env -u CI ${exports} ${[process.execPath, BIN, ...args].map(quote).join(' ')}; echo $? > ${quote(options.exitFile)}; sleep 60`;
  await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'agora', '-x', String(options.columns), '-y', String(options.rows), command);
  const screen = async (escapes = false) =>
    (await tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-t', 'agora')).stdout;
  return {
    screen,
    /** Keys as tmux names them (`Down`, `Enter`) or plain text. */
    keys: (...keys: string[]) => tmux('send-keys', '-t', 'agora', ...keys),
    /** Waits (polling, no fixed sleep) until the screen matches; fails after `timeoutMs`. */
    async waitFor(pattern: RegExp, timeoutMs = 5000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        last = await screen();
        if (pattern.test(last)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`screen never showed ${pattern} within ${timeoutMs} ms; it shows:\n${last}`);
    },
    close: () => tmux('kill-server').catch(() => undefined),
  };
}
