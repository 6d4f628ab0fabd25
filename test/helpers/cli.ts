import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN } from './server.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `agora` binary with its own HOME (so stored profiles live in the test's temp folder),
 * no TTY, and the given environment.
 */
export function runCli(
  args: string[],
  options: { home: string; env?: Record<string, string | undefined>; input?: string } = { home: '/nonexistent' },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      HOME: options.home,
      XDG_CONFIG_HOME: join(options.home, '.config'),
      XDG_STATE_HOME: join(options.home, '.local', 'state'),
      AGORA_URL: undefined,
      AGORA_API_KEY: undefined,
      AGORA_API_SECRET: undefined,
      AGORA_PROFILE: undefined,
      AGORA_BOOTSTRAP_API_KEY: undefined,
      AGORA_BOOTSTRAP_API_SECRET: undefined,
      ...options.env,
    };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // Decoded as one stream: a multi-byte character split across two chunks must not turn into U+FFFD.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Keys typed at the terminal once the output so far matches `when` (e.g. a prompt); `send` is raw input ("n\r"). */
export interface TtyAnswer {
  when: RegExp;
  send: string;
}

/**
 * Runs the binary under a pseudo-terminal (util-linux `script`), as a person at a terminal would. With
 * `answers`, each is typed in turn as soon as its prompt shows; a run that never shows one, or that runs past
 * `timeoutMs` when one is given, is killed (code null) rather than left hanging.
 */
export function runCliTty(
  args: string[],
  options: { home: string; env?: Record<string, string | undefined>; answers?: TtyAnswer[]; timeoutMs?: number; columns?: number },
): Promise<CliResult> {
  const columns = options.columns ?? 200;
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      HOME: options.home,
      XDG_CONFIG_HOME: join(options.home, '.config'),
      XDG_STATE_HOME: join(options.home, '.local', 'state'),
      TERM: 'xterm',
      COLUMNS: String(columns),
      ...options.env,
    };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const child = spawn('script', ['-qfec', `stty cols ${columns} 2>/dev/null; ${quoted}`, '/dev/null'], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    // Decoded as one stream: a multi-byte character split across two chunks must not turn into U+FFFD.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    const answers = [...(options.answers ?? [])];
    // The output a prompt is looked for in starts after the previous answer.
    let from = 0;
    const answer = () => {
      while (answers.length > 0 && answers[0]!.when.test(stdout.slice(from))) {
        from = stdout.length;
        child.stdin.write(answers.shift()!.send);
      }
      if (answers.length === 0) child.stdin.end();
    };
    const timer = answers.length > 0 || options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000) : undefined;
    child.stdout.on('data', (c) => {
      stdout += c;
      if (answers.length > 0) answer();
    });
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stdout.replace(/\r\n/g, '\n'), stderr });
    });
    if (answers.length === 0) child.stdin.end();
  });
}
