import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/domain/api-keys.js';
import { openStore } from '../../src/store/open.js';
import { runCli } from '../helpers/cli.js';
import { removeDir } from '../helpers/server.js';

/**
 * Which key opens a SQLite store's webhook secrets as `agora admin copy` moves them. A store served with
 * AGORA_SECRET_KEY has no key file; work that seals nothing (`admin create-key` without the variable) must not make
 * one, which the copy would then take for the key the secrets were sealed with.
 */
const dir = mkdtempSync(join(tmpdir(), 'agora-copy-keys-'));
afterAll(() => removeDir(dir));
const KEY = 'the key the server was given';
const source = join(dir, 'served.db');
const copy = (to: string, env: Record<string, string>) =>
  runCli(['admin', 'copy', '--from', source, '--to', join(dir, to)], { home: dir, env: { AGORA_SECRET_KEY: '', ...env } });

beforeAll(async () => {
  const store = await openStore(source, { secretKey: KEY });
  const admin = await issueApiKey({ store, clock: () => new Date() });
  const at = '2026-01-01T00:00:00.000Z';
  await store.webhooks.insert({
    id: 'w1', url: 'https://example.org/h', events: '[]', secret: 'whsec_clear', user_id: admin.user_id,
    created_at: at, updated_at: at, consecutive_failures: 0, circuit_open_until: null,
  });
  await store.close();
});

describe('agora admin copy of a store served with AGORA_SECRET_KEY', () => {
  it('work that seals nothing leaves no key file behind, and the copy opens the secrets with the variable', async () => {
    const made = await runCli(['admin', 'create-key', '--db', source, '--json'], { home: dir, env: { AGORA_SECRET_KEY: '' } });
    expect(made.code, made.stderr).toBe(0);
    expect(existsSync(`${source}.key`)).toBe(false);
    const copied = await copy('copy.db', { AGORA_SECRET_KEY: KEY });
    expect(copied.code, copied.stderr).toBe(0);
    // The copy is sealed with the variable too, not a key file of its own: said, since a SQLite file is served with its file by default.
    expect(copied.stderr).toContain(`note: the webhook signing secrets are sealed with AGORA_SECRET_KEY: serve ${join(dir, 'copy.db')} with the same AGORA_SECRET_KEY`);
    expect(existsSync(join(dir, 'copy.db.key'))).toBe(false);
    const opened = await openStore(join(dir, 'copy.db'), { secretKey: KEY });
    expect(opened.webhooks.secrets.open((await opened.webhooks.getById('w1'))!.secret)).toBe('whsec_clear');
    await opened.close();
  });

  it('a key that does not open them: the error says it is the source, and which key was tried; still no key file', async () => {
    const wrong = await copy('wrong.db', { AGORA_SECRET_KEY: 'not the key it was sealed with' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("the source's webhook secrets cannot be opened with AGORA_SECRET_KEY, the key a server on it uses");
    const none = await copy('none.db', {});
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`the source's webhook secrets cannot be opened with ${source}.key, the key a server on it uses`);
    expect(none.stderr).toContain(`there is no key file ${source}.key`);
    expect(existsSync(`${source}.key`)).toBe(false);
  });
});
