import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { Credentials } from './server.js';

/**
 * Prism (@stoplight/prism-cli) in proxy mode with `--errors` in front of a running agora: every request is
 * checked against the OpenAPI document before it is forwarded, every answer after, and any mismatch comes back
 * as Prism's own problem+json error instead of agora's answer. `session()` drives requests through it and
 * records which operation each one was (by the document's paths), so that a check can demand all of them.
 */
const PRISM = resolve(__dirname, '../../node_modules/.bin/prism');
const PREFIX = '/public-api/v1';

interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  secured: boolean;
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  as?: Credentials | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface PrismSession {
  url: string;
  /** Every operation of the document. */
  operations: Operation[];
  /** The statuses each operation answered through Prism, by operationId. */
  seen: Map<string, Set<number>>;
  /** Every violation Prism reported and every status other than the one expected, in order. */
  problems: string[];
  /**
   * One request through Prism as `as` (the admin unless told); a violation Prism reports, or a status other than
   * `expected`, is added to `problems` (all of them are reported at once, not only the first). The first time a secured operation is called, the same request with a wrong secret
   * goes first and must be agora's 401 (it acts on nothing).
   */
  call<T = any>(method: string, path: string, expected: number, options?: CallOptions): Promise<Answer<T>>;
  /** One request through Prism as it comes, nothing checked nor recorded. */
  send(method: string, path: string, options?: CallOptions): Promise<Answer>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

function operationsOf(doc: { paths: Record<string, Record<string, any>>; security?: unknown[] }): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.operationId) continue;
      const source = template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+');
      const security = operation.security ?? doc.security ?? [];
      operations.push({
        id: operation.operationId,
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        secured: security.length > 0 && !security.some((s: object) => Object.keys(s).length === 0),
      });
    }
  }
  return operations;
}

/** Prism's own errors: a request or an answer that does not match the document. */
function violation(answer: Answer): string | undefined {
  const header = answer.headers.get('sl-violations');
  if (header) return header;
  const type = (answer.body as { type?: unknown } | undefined)?.type;
  if (typeof type === 'string' && type.startsWith('https://stoplight.io/prism/errors')) return answer.text;
  return undefined;
}

/** The violations Prism lists in its `sl-violations` header (without `--errors`, it forwards what it finds wrong). */
export const violationsOf = (answer: Answer): { location: string[]; message: string }[] =>
  JSON.parse(answer.headers.get('sl-violations') ?? '[]');

/** Prism in front of agora, `--errors` unless `errors` is false (then it forwards and lists what it finds). */
export async function startPrism(dir: string, agoraUrl: string, doc: any, admin: Credentials, errors = true): Promise<PrismSession> {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const port = await freePort();
  const child: ChildProcess = spawn(PRISM, ['proxy', file, agoraUrl, ...(errors ? ['--errors'] : []), '--host', '127.0.0.1', '--port', String(port)], {
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (chunk) => (log += chunk));
  child.stderr!.on('data', (chunk) => (log += chunk));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`prism did not start: ${log}`)), 60_000);
    const look = () => {
      if (!/Prism is listening/.test(log)) return;
      clearTimeout(timer);
      ok();
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => fail(new Error(`prism exited (${code}): ${log}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const operations = operationsOf(doc);
  const seen = new Map<string, Set<number>>();
  const problems: string[] = [];

  const send = async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const creds = options.as === undefined ? admin : options.as;
    const headers: Record<string, string> = { ...options.headers };
    if (creds) Object.assign(headers, { 'api-key': creds.key, 'api-secret': creds.secret });
    let payload: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const res = await fetch(url + PREFIX + path, { method, headers, body: payload });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // NDJSON, CSV, an event stream: the text is the body.
    }
    return { status: res.status, headers: res.headers, body, text };
  };

  const call: PrismSession['call'] = async (method, path, expected, options = {}) => {
    const bare = path.split('?')[0]!;
    const operation = operations.find((o) => o.method === method && o.pattern.test(PREFIX + bare));
    if (!operation) throw new Error(`${method} ${path} is no operation of the document`);
    const statuses = seen.get(operation.id) ?? new Set<number>();
    seen.set(operation.id, statuses);
    if (operation.secured && !statuses.has(401) && options.as !== null) {
      const creds = options.as ?? admin;
      const refused = await send(method, path, { ...options, as: { key: creds.key, secret: `${creds.secret}x` } });
      const problem = violation(refused);
      if (problem) problems.push(`${operation.id} (wrong secret): Prism reports ${problem}`);
      else if (refused.status !== 401) problems.push(`${operation.id} (wrong secret): ${refused.status} ${refused.text}`);
      else statuses.add(401);
    }
    const answer = await send(method, path, options);
    const problem = violation(answer);
    if (problem) problems.push(`${operation.id} ${method} ${path}: Prism reports ${problem}`);
    else if (answer.status !== expected) problems.push(`${operation.id} ${method} ${path}: ${answer.status}, not ${expected}: ${answer.text}`);
    else statuses.add(answer.status);
    return answer;
  };

  return {
    url,
    operations,
    seen,
    problems,
    call,
    send,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((ok) => child.once('exit', ok));
        child.kill();
        await exited;
      }
    },
  };
}
