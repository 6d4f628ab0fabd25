import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { openSource, type ImportFormat } from '../../src/cli/import/read-rows.js';
import { runImport } from '../../src/cli/import/run-import.js';
import { CreateUserInput } from '../../src/shared/schemas/users.js';

const dir = mkdtempSync(join(tmpdir(), 'agora-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const user = (i: number) => ({
  first_name: 'Pro',
  last_name: `Gress ${i}`,
  nickname: `progress_${i}`,
  email: `progress${i}@example.org`,
  password: 'secret123',
  accept_conditions: true,
  accept_confidentiality: true,
});
const ROWS = 100;
const FILES: Record<ImportFormat, string> = {
  ndjson: `${Array.from({ length: ROWS }, (_, i) => JSON.stringify(user(i))).join('\n')}\n`,
  csv:
    'first_name,last_name,nickname,email,password,accept_conditions,accept_confidentiality\r\n' +
    Array.from({ length: ROWS }, (_, i) => Object.values(user(i)).join(',') + '\r\n').join(''),
  json: JSON.stringify(Array.from({ length: ROWS }, (_, i) => user(i))),
};

/** The progress bar's lines as a terminal would show them (each redraw clears the line first). */
function terminal() {
  let written = '';
  const stream = { write: (text: string) => ((written += text), true) } as unknown as NodeJS.WriteStream;
  const lines = () => written.split(/\r\u001b\[2K/).map((l) => l.trim()).filter(Boolean);
  return { stream, lines };
}

describe('the import progress bar', () => {
  // A file this small is read whole at once: a bar of the bytes read said 100% (ETA none) from the first row on.
  it.each(['ndjson', 'csv', 'json'] as const)('shows the share of the %s rows done, not of the file read', async (format) => {
    const file = join(dir, `users.${format}`);
    writeFileSync(file, FILES[format]);
    const { stream, lines } = terminal();
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    let seen = 0;
    const running = runImport({
      // A dry run sends nothing: no server is called.
      client: new ApiClient({ baseUrl: 'http://127.0.0.1:9' }),
      kind: {
        name: 'users',
        path: '/users',
        schema: CreateUserInput,
        // Row 6 waits (the look-up of names every row goes through) until the bar has been drawn.
        resolve: async (body) => {
          if (++seen === 6) await held;
          return body;
        },
      },
      source: openSource(file, format),
      concurrency: 1,
      dryRun: true,
      resume: false,
      progress: stream,
    });
    for (let waited = 0; !lines().some((l) => l.includes('5 rows')) && waited < 10_000; waited += 20)
      await new Promise((ok) => setTimeout(ok, 20));
    const midway = lines().findLast((l) => l.includes('5 rows'));
    expect(midway).toBeDefined();
    const share = Number(/(\d+)% /.exec(midway!)?.[1]);
    // 5 rows of 100 (a CSV's header counts with its first row; a JSON array's rows are measured re-serialized).
    expect(share).toBeGreaterThanOrEqual(3);
    expect(share).toBeLessThanOrEqual(8);
    release();
    const summary = await running;
    expect(summary.valid).toBe(ROWS);
    expect(lines().at(-1)).toMatch(/^\[#{24}\] 100% 100 rows/);
  });
});
