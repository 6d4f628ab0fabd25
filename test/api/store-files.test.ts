import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { SecretBox, SecretKeyError } from '../../src/store/secret-box.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { startApp } from '../helpers/app.js';
import { migrateOnly } from '../helpers/migrations.js';
import { removeDir } from '../helpers/server.js';
import { onPostgres, openRaw, sqliteOnly, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

const root = mkdtempSync(join(tmpdir(), 'agora-files-'));
afterAll(() => removeDir(root));
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('the database files', () => {
  it.skipIf(onPostgres)(`are created private: the folder 0700, the database, its -wal and -shm 0600, the key file 0600${sqliteOnly('the modes of SQLite\'s files')}`, async () => {
    const db = join(root, 'new', 'agora.db');
    const store = await openSqliteStore(db);
    await store.users.list({}, { page: 1, per_page: 1 });
    // The key file is made by the first seal (a webhook's secret), not by opening the store.
    expect(existsSync(`${db}.key`)).toBe(false);
    store.webhooks.secrets.seal('whsec_x');
    expect(mode(join(root, 'new'))).toBe('700');
    for (const file of [db, `${db}-wal`, `${db}-shm`, `${db}.key`]) expect(mode(file), file).toBe('600');
    await store.close();
  });

  it.skipIf(onPostgres)(`a key file there already that holds no key fails the opening, not the first webhook${sqliteOnly('the key file')}`, async () => {
    mkdirSync(join(root, 'bad-key'), { mode: 0o700 });
    const db = join(root, 'bad-key', 'agora.db');
    writeFileSync(`${db}.key`, 'not a key\n', { mode: 0o600 });
    await expect(openSqliteStore(db)).rejects.toThrow(`${db}.key does not hold a 256-bit key (base64)`);
  });
});

describe('the write-ahead log', () => {
  it.skipIf(onPostgres)(`starts over while writes go on, so it does not grow without end${sqliteOnly('SQLite\'s log')}`, async () => {
    const file = join(root, 'restarts.db');
    const store = await openSqliteStore(file);
    // The log's header: its checkpoint sequence number (bytes 12–15) moves each time a writer starts it over.
    const header = Buffer.alloc(32);
    const sequence = () => {
      const fd = openSync(`${file}-wal`, 'r');
      try {
        return readSync(fd, header, 0, 32, 0) === 32 ? header.readUInt32BE(12) : -1;
      } finally {
        closeSync(fd);
      }
    };
    const sequences = new Set<number>();
    try {
      // 1,500 writes one after another, each its own commit: some 7,000 pages, several times SQLite's own checkpoint
      // (1,000 pages), which the writer runs at a commit. The read-only connection beside it must not hold it back.
      for (let i = 0; i < 1500; i++) {
        await store.transaction((tx) => tx.pageConfigurations.insert({ id: `r${i}`, name: `R ${i}`, description: '', created_at: '', updated_at: '' }));
        await store.users.list({}, { page: 1, per_page: 1 });
        sequences.add(sequence());
      }
    } finally {
      await store.close();
    }
    expect(sequences.size).toBeGreaterThanOrEqual(3);
  });
});

describe('webhook signing secrets', () => {
  const webhook = { url: 'https://example.org/hook', events: ['invite.created'] };

  it(`are stored sealed, under ${onPostgres ? 'AGORA_SECRET_KEY' : 'the key file beside the database'}, and read back in clear`, async () => {
    const api = await startApp();
    try {
      const created = await api.call('POST', '/webhooks', { body: webhook });
      expect(created.status).toBe(201);
      const raw = await openRaw(api.file, { readonly: true });
      const stored = (await raw.all<{ secret: string }>('select secret from webhooks where id = ?', [created.body.id]))[0]!.secret;
      await raw.close();
      expect(stored.startsWith('enc:v1:')).toBe(true);
      expect(stored).not.toContain(created.body.secret.replace('whsec_', ''));
      expect(api.store.webhooks.secrets.open(stored)).toBe(created.body.secret);
      // Another opening of the same store (another process) reads it with the same key.
      const again = await openStore(api.file, onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
      expect(again.webhooks.secrets.open(stored)).toBe(created.body.secret);
      await again.close();
    } finally {
      await api.close();
      removeDir(api.dir);
    }
  });

  it('use AGORA_SECRET_KEY instead of a key file when given, and cannot be read with another key', async () => {
    const db = onPostgres ? await storeTargetFor(mkdtempSync(join(root, 'with-env-'))) : join(root, 'with-env.db');
    const store = await openStore(db, { secretKey: 'a passphrase long enough' });
    if (!onPostgres) expect(existsSync(`${db}.key`)).toBe(false);
    const { issueApiKey } = await import('../../src/domain/api-keys.js');
    const admin = await issueApiKey({ store, clock: () => new Date() });
    await store.webhooks.insert({
      id: 'w1',
      url: 'https://example.org/h',
      events: '[]',
      secret: 'whsec_clear',
      user_id: admin.user_id,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      consecutive_failures: 0,
      circuit_open_until: null,
    });
    await store.close();
    const wrong = await openStore(db, { secretKey: 'another passphrase, long' });
    const sealed = (await wrong.webhooks.getById('w1'))!.secret;
    expect(sealed.startsWith('enc:v1:')).toBe(true);
    expect(() => wrong.webhooks.secrets.open(sealed)).toThrow(/cannot be decrypted/);
    await wrong.close();
    const right = await openStore(db, { secretKey: 'a passphrase long enough' });
    expect(right.webhooks.secrets.open(sealed)).toBe('whsec_clear');
    await right.close();
  });

  it('that cannot be opened throw a SecretKeyError, by which agora admin copy knows the source\'s key failed', () => {
    const sealed = SecretBox.fromString('a passphrase long enough').seal('whsec_clear');
    const thrown = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      throw new Error('it did not throw');
    };
    // Another key, no key file, no key at all: whatever the message says.
    for (const box of [SecretBox.fromString('another passphrase, long'), SecretBox.fromKeyFile(join(root, 'none.key')), SecretBox.unavailable('no key')])
      expect(thrown(() => box.open(sealed))).toBeInstanceOf(SecretKeyError);
    // Sealing without a key is no secret that cannot be opened (a copy's destination): another error.
    expect(thrown(() => SecretBox.unavailable('no key').seal('whsec_clear'))).not.toBeInstanceOf(SecretKeyError);
  });

  it('are not shown again, nor stored, by an Idempotency-Key replay of the create', async () => {
    const api = await startApp();
    try {
      const headers = { 'idempotency-key': 'hook-1' };
      const first = await api.call('POST', '/webhooks', { body: webhook, headers });
      const replay = await api.call('POST', '/webhooks', { body: webhook, headers });
      expect(first.status).toBe(201);
      expect(first.body.secret).toMatch(/^whsec_/);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual({ ...first.body, secret: undefined });
      expect('secret' in replay.body).toBe(false);
      const raw = await openRaw(api.file, { readonly: true });
      const stored = (await raw.all<{ response_body: string }>('select response_body from idempotency_keys')).map((r) => r.response_body);
      await raw.close();
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.join()).not.toContain(first.body.secret);
    } finally {
      await api.close();
      removeDir(api.dir);
    }
  });
});

describe('the nickname migration', () => {
  it('reports nicknames that differ only by case, naming them, instead of failing on a bare constraint', async () => {
    const db = onPostgres ? await storeTargetFor(mkdtempSync(join(root, 'clash-')), { empty: true }) : join(root, 'clash.db');
    const options = onPostgres ? { secretKey: TEST_SECRET_KEY } : {};
    // A store from before 0004, with two nicknames that now clash.
    await migrateOnly(db, ['0001-foundation', '0002-membership', '0003-content']);
    const raw = await openRaw(db);
    const [role] = await raw.all<{ id: string }>("select id from permission_sets where system_key = 'members'");
    const insert = `insert into users (id, first_name, last_name, nickname, email, password_hash, permission_set_id, slug,
        conditions_accepted_at, confidentiality_accepted_at, created_at, updated_at) values (?, 'Z', 'Z', ?, ?, 'x', ?, ?, 'now', 'now', 'now', 'now')`;
    await raw.all(insert, ['u1', 'Zed', 'z1@example.org', role!.id, 'zed']);
    await raw.all(insert, ['u2', 'zed', 'z2@example.org', role!.id, 'zed-2']);
    await raw.close();
    await expect(openStore(db, options)).rejects.toThrow(/"Zed" \(u1\) and "zed" \(u2\)/);
  });
});
