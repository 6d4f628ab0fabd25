import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, KNOWN_MIGRATIONS } from '../../src/store/store.js';
import { runCli } from '../helpers/cli.js';
import { removeDir } from '../helpers/server.js';
import { onPostgres, openRaw, PG_TEST_DB, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * `--db` picks the store (a SQLite file, or PostgreSQL for a postgres:// URL), `agora admin migrate` applies and
 * names the migrations, and a schema newer than the build is refused, by `serve` and the admin commands alike.
 * Runs on the store of the run (SQLite, or PostgreSQL with AGORA_TEST_DB).
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agora-versions-'));
  dirs.push(dir);
  return dir;
};
const env = onPostgres ? { AGORA_SECRET_KEY: TEST_SECRET_KEY } : {};

describe('agora admin migrate', () => {
  it('applies every migration to an empty store, naming each, then finds nothing to apply', async () => {
    const dir = freshDir();
    const db = await storeTargetFor(dir, { empty: true });
    const first = await runCli(['admin', 'migrate', '--db', db], { home: dir, env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`${KNOWN_MIGRATIONS.map((m) => `applied ${m}\n`).join('')}schema now at ${SCHEMA_VERSION}\n`);
    const again = await runCli(['admin', 'migrate', '--db', db, '--json'], { home: dir, env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ applied: [], version: SCHEMA_VERSION });
    // The store works: the kept counts agree with a recount.
    const check = await runCli(['admin', 'check', '--db', db], { home: dir, env });
    expect(check.stdout).toBe('counts agree with a recount: no drift\n');
  });

  it('refuses a store whose schema is newer than this build, in serve and the admin commands, naming both versions', async () => {
    const dir = freshDir();
    const db = await storeTargetFor(dir, { empty: true });
    expect((await runCli(['admin', 'migrate', '--db', db], { home: dir, env })).code).toBe(0);
    const raw = await openRaw(db);
    await raw.all('insert into kysely_migration (name, timestamp) values (?, ?)', ['9999-from-the-future', new Date().toISOString()]);
    await raw.close();
    const line = `error: the database's schema is at version 9999-from-the-future, newer than this agora knows (${SCHEMA_VERSION}): run the newer agora that upgraded it\n`;
    for (const args of [['serve', '--port', '0'], ['admin', 'migrate'], ['admin', 'create-key']]) {
      const result = await runCli([...args, '--db', db], { home: dir, env });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toBe(line);
      expect(result.stdout).toBe('');
    }
  });
});

describe('a PostgreSQL --db', () => {
  it('that cannot be reached: serve and admin commands exit 1 with one line naming it, never the password', async () => {
    const dir = freshDir();
    const url = 'postgres://agora:hunter2-secret@127.0.0.1:1/agora_nowhere';
    for (const args of [['serve', '--port', '0'], ['admin', 'create-key'], ['admin', 'migrate']]) {
      const result = await runCli([...args, '--db', url], { home: dir, env: { AGORA_SECRET_KEY: TEST_SECRET_KEY } });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toBe(
        'error: cannot use the PostgreSQL database "agora_nowhere" on 127.0.0.1:1 as user "agora": the connection was refused (is PostgreSQL running and listening there?)\n',
      );
      expect(result.stderr + result.stdout).not.toContain('hunter2');
    }
  });

  it.skipIf(!PG_TEST_DB)('naming a database the server does not have: says to create it [runs with AGORA_TEST_DB]', async () => {
    const url = new URL(PG_TEST_DB!);
    url.pathname = `/agora_missing_${process.pid}`;
    const result = await runCli(['admin', 'migrate', '--db', url.toString()], { home: freshDir(), env: { AGORA_SECRET_KEY: TEST_SECRET_KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: cannot use the PostgreSQL database "agora_missing_\d+" on .*: database "agora_missing_\d+" does not exist: create it first \(createdb, or CREATE DATABASE\)\n$/);
  });

  it('is chosen by AGORA_DB too, and serve refuses it without AGORA_SECRET_KEY', async () => {
    const dir = freshDir();
    const result = await runCli(['serve', '--port', '0'], {
      home: dir,
      env: { AGORA_DB: 'postgresql://agora@127.0.0.1:1/agora', AGORA_SECRET_KEY: undefined },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: AGORA_SECRET_KEY is required with a PostgreSQL store: every process must seal webhook secrets with the same key, kept outside the database\n',
    );
  });
});
