import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleUser } from '../../src/shared/schemas/examples.js';
import { runCliTty } from '../helpers/cli.js';

/**
 * The spinner a slow call shows at a terminal (after 300 ms), against a server that takes a second to answer
 * (a plain HTTP server answering the API's 404 shape). ora stays still where `CI` is set: the runs unset it.
 */
let server: Server;
let url: string;
let home: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'agora-spinner-'));
  let created = 0;
  server = createServer((request, response) => {
    request.resume();
    setTimeout(() => {
      // An import's create (POST /users) is answered as created; anything else as a user not found.
      if (request.method === 'POST') {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ...exampleUser, id: `${++created}`.padStart(32, '0') }));
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'not_found', message: 'User not found' } }));
    }, 1500);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(home, { recursive: true, force: true });
});

const slowCall = (env: Record<string, string | undefined>, columns?: number) =>
  runCliTty(['users', 'get', 'someone'], {
    home,
    env: { AGORA_URL: url, AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_x', CI: undefined, ...env },
    ...(columns === undefined ? {} : { columns, timeoutMs: 20_000 }),
  });
/** A colour or other graphic rendition: `ESC [ … m`. */
const SGR = /\u001b\[[0-9;]*m/;

describe('the slow-call spinner', () => {
  it('turns while a call is slow, coloured, and is gone when the answer comes', async () => {
    const run = await slowCall({ NO_COLOR: undefined });
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/\u001b\[36m[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\u001b\[39m GET \/users/);
    // The line is cleared before the answer is written.
    expect(run.stdout).toMatch(/\u001b\[0K(\u001b\[\?25h)?error: User not found/);
  });

  it('with NO_COLOR, turns without a colour', async () => {
    const noColor = await slowCall({ NO_COLOR: '1' });
    expect(noColor.stdout).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] GET \/users/);
    expect(noColor.stdout).not.toMatch(SGR);
    expect(noColor.stdout).toMatch(/\u001b\[0K(\u001b\[\?25h)?error: User not found/);
  });

  it('on a dumb terminal, or with CI set, shows nothing (ora would print the label as a line of its own)', async () => {
    const [dumb, ci] = await Promise.all([slowCall({ TERM: 'dumb', NO_COLOR: undefined }), slowCall({ CI: 'true', NO_COLOR: undefined })]);
    for (const run of [dumb, ci]) {
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).not.toContain('GET /users');
      expect(run.stdout).toContain('error: User not found');
    }
    expect(dumb.stdout).not.toMatch(SGR);
  });

  it('on a terminal that reports no width (0 columns: script with no terminal on its input, some containers), shows nothing', async () => {
    // ora divides by the width: it would clear an endless number of lines, without end (and no signal but KILL stops it).
    const run = await slowCall({ NO_COLOR: undefined }, 0);
    expect(run.code, run.stdout.slice(0, 500)).toBe(1);
    expect(run.stdout).not.toContain('GET /users');
    expect(run.stdout).toContain('error: User not found');
    expect(run.stdout.length).toBeLessThan(2_000);
  });
});

describe('the slow-call spinner beside a progress line (an import\'s bar, an export\'s count)', () => {
  it('draws nothing while the bar holds the line: each slow create is counted on the bar, never turned over', async () => {
    const user = (i: number) => ({
      first_name: 'Slow',
      last_name: `Row ${i}`,
      nickname: `slow_${i}`,
      email: `slow${i}@example.org`,
      password: 'secret123',
      accept_conditions: true,
      accept_confidentiality: true,
    });
    const file = join(home, 'slow.ndjson');
    writeFileSync(file, `${JSON.stringify(user(1))}\n${JSON.stringify(user(2))}\n`);
    const run = await runCliTty(['users', 'import', file, '--concurrency', '1', '--report', join(home, 'slow-report.ndjson')], {
      home,
      env: { AGORA_URL: url, AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_x', CI: undefined, NO_COLOR: '1' },
    });
    expect(run.code, run.stdout).toBe(0);
    // The bar was drawn while the calls were slow (1.5 s each, the spinner's 300 ms passed), and ended whole.
    expect(run.stdout).toMatch(/\r\u001b\[2K\[\.{24}\] 0% 0 rows/);
    expect(run.stdout).toContain('created 2, already there 0, failed 0');
    expect(run.stdout).not.toContain('POST /users');
    expect(run.stdout).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });

  it('nor while an export counts its users on the line', async () => {
    const run = await runCliTty(['users', 'export', '--output', join(home, 'users.ndjson')], {
      home,
      env: { AGORA_URL: url, AGORA_API_KEY: 'ak_x', AGORA_API_SECRET: 'as_x', CI: undefined, NO_COLOR: '1' },
    });
    // The server's answer (after 1.5 s) is a 404: the export fails, having shown its count and no spinner.
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toContain('0 users exported');
    expect(run.stdout).not.toContain('GET /users');
  });
});
