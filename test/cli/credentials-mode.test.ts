import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * A credentials file readable by others is made 0600 as it is read (9794863). One that cannot be changed (a
 * read-only mount, such as a Kubernetes secret's, 0644 by default) made every command fail with EROFS instead of
 * reading it: it is said, and read.
 */
vi.mock('node:fs/promises', async (original) => {
  const actual = await original<typeof import('node:fs/promises')>();
  return {
    ...actual,
    chmod: vi.fn(async () => {
      throw Object.assign(new Error('EROFS: read-only file system, chmod'), { code: 'EROFS' });
    }),
  };
});

afterEach(() => vi.restoreAllMocks());

describe('a credentials file readable by others that cannot be made 0600', () => {
  it('is still read, and said so on standard error', async () => {
    const { readCredentials } = await import('../../src/cli/credentials.js');
    const path = join(mkdtempSync(join(tmpdir(), 'agora-creds-')), 'credentials.json');
    writeFileSync(path, JSON.stringify({ current: 'default', profiles: { default: { url: 'http://127.0.0.1:9', api_key: 'ak_x', api_secret: 's' } } }), { mode: 0o644 });
    const said: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (said.push(String(chunk)), true));
    const file = await readCredentials(path);
    expect(file.current).toBe('default');
    expect(said.join('')).toBe(`agora: ${path} is readable by others (mode 644) and could not be made 600 (EROFS)\n`);
  });
});
