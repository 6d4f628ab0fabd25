import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './server.js';

export interface TerminalOptions {
  width?: number;
  height?: number;
  /**
   * `agora` arguments to run as the pane's program (a full-screen view, say) instead of a plain shell; its
   * exit code is then read with `exitCode()`.
   */
  agora?: string[];
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A real terminal for a test: a tmux server of its own (its own socket, so nothing else's sessions are
 * touched) with one pane running a plain shell, or the `agora` binary itself. Commands are typed with
 * send-keys, the screen is read with capture-pane, the pane's title with `#{pane_title}`.
 */
export class Terminal {
  private readonly socket = `agora-test-${randomBytes(4).toString('hex')}`;
  private readonly exitFile: string;

  constructor(home: string, env: Record<string, string>, options: TerminalOptions = {}) {
    const vars = { NO_COLOR: '1', ...env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), TERM: 'xterm-256color', PS1: '$ ' };
    this.exitFile = join(home, `exit-${this.socket}`);
    // A program run as the pane's own keeps the pane open after it exits (so its last screen can be read)
    // and leaves its exit code in a file. CI=true is dropped: the program must believe it is at a terminal. A Ctrl-C
    // typed before the program reads keys is a SIGINT to the whole foreground group, this shell too: trapped (the
    // program gets the default back at exec), the shell outlives it and writes its code, as an interactive shell would.
    const program = options.agora
      ? ['sh', '-c', `trap true INT; env -u CI ${[process.execPath, BIN, ...options.agora].map(quote).join(' ')}; echo $? > ${quote(this.exitFile)}; sleep 600`]
      : ['sh'];
    this.tmux(
      '-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(options.width ?? 200), '-y', String(options.height ?? 50),
      ...Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      ...program,
    );
    // The title a program could change; set to a known value first.
    this.tmux('select-pane', '-t', 'main', '-T', 'agora-test');
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** Types a line (literally) and Enter. */
  type(line: string): void {
    this.tmux('send-keys', '-t', 'main', '-l', line);
    this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /**
   * The screen; with `joined`, lines tmux wrapped are joined back (so a too-wide line shows as one); with
   * `escapes`, the colours and attributes as escape sequences.
   */
  screen(joined = false, { escapes = false } = {}): string {
    return this.tmux('capture-pane', '-p', ...(joined ? ['-J'] : []), ...(escapes ? ['-e'] : []), '-t', 'main');
  }

  title(): string {
    return this.tmux('display-message', '-p', '-t', 'main', '#{pane_title}').trim();
  }

  /**
   * Resizes the window, and waits until the pane's shell sees the new size: tmux tells the pane's terminal a moment
   * later (it spaces resizes out), and a program started before then would draw for the old width.
   */
  async resize(width: number, height = 50): Promise<void> {
    this.tmux('resize-window', '-t', 'main', '-x', String(width), '-y', String(height));
    for (let attempt = 0; ; attempt++) {
      const marker = `size-${randomBytes(3).toString('hex')}`;
      this.type(`echo ${marker}=$(stty size)`);
      const seen = await this.waitFor(new RegExp(`^${marker}=\\d+ \\d+`, 'm'));
      if (new RegExp(`^${marker}=${height} ${width}$`, 'm').test(seen)) return;
      if (attempt === 50) throw new Error(`the pane never saw ${width}×${height}:\n${seen}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }

  /** A blank screen and no scrollback (the pane's terminal reset, as `clear` would, without a race with typing). */
  clear(): void {
    this.tmux('send-keys', '-R', '-t', 'main');
    this.tmux('clear-history', '-t', 'main');
  }

  /** Waits (bounded) until the screen matches; the screen on success, an error with the screen otherwise. */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen(true);
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}:\n${screen}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }

  /** Runs `agora ARGS` (a shell line after `agora`) and waits for its exit code, printed after it. */
  async agora(args: string): Promise<{ code: number; screen: string }> {
    const marker = `exit-${randomBytes(3).toString('hex')}`;
    this.type(`${process.execPath} ${BIN} ${args}; echo ${marker}=$?`);
    const screen = await this.waitFor(new RegExp(`${marker}=(\\d+)`));
    return { code: Number(new RegExp(`${marker}=(\\d+)`).exec(screen)![1]), screen };
  }

  /** The exit code of the program the pane runs (`options.agora`), waiting (bounded) for it to exit. */
  async exitCode(timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    // The shell creates the file before `echo` writes to it: an empty file is not yet a code (read as 0, it passed
    // a Ctrl-C's 130 off as a success on a loaded machine). The code is whole once its line ends.
    for (;;) {
      const written = existsSync(this.exitFile) ? readFileSync(this.exitFile, 'utf8') : '';
      if (written.endsWith('\n')) return Number(written.trim());
      if (Date.now() > deadline) throw new Error(`the program never exited:\n${this.screen(true)}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }

  /** Sends a signal to the program the pane runs (`options.agora`), as `kill` from another terminal would. */
  signal(name: NodeJS.Signals): void {
    const shell = Number(this.tmux('display-message', '-p', '-t', 'main', '#{pane_pid}').trim());
    const children = readdirSync('/proc').filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === shell;
      } catch {
        return false; // not a process, or gone
      }
    });
    if (children.length === 0) throw new Error('the pane runs no program to signal');
    for (const pid of children) process.kill(Number(pid), name);
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}
