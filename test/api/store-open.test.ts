import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { removeDir } from '../helpers/server.js';

/**
 * A `--db` value is a PostgreSQL URL or a SQLite file's path. One shaped like an address that is no postgres:// URL
 * is a mistyped URL: refused, never made into an empty SQLite file that a server would then serve (or a copy fill).
 */
describe('a store named by a mistyped URL', () => {
  it('is refused, naming the scheme but not the password, and leaves no file behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agora-open-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const mistyped = [
        'postgress://agora:hunter2@db.internal:5432/agora',
        'postgresql:/agora@db.internal/agora',
        'postgres:agora:hunter2@db.internal/agora',
        'db.internal:5432/agora',
        'localhost:5432',
      ];
      for (const target of mistyped) {
        const opened = openStore(target);
        await expect(opened, target).rejects.toThrow(/names no store: a PostgreSQL database is a URL beginning postgres:\/\//);
        await expect(opened).rejects.not.toThrow(/hunter2/);
      }
      expect(readdirSync(dir)).toEqual([]);
      // A path is still a path, colons and all (a backup named by its time), and so is one that exists.
      for (const path of ['community.db', 'postgres-backup.db', 'backup-2026-11-28T17:45:00.db']) await (await openStore(path)).close();
      expect(readdirSync(dir)).toEqual(expect.arrayContaining(['community.db', 'postgres-backup.db', 'backup-2026-11-28T17:45:00.db']));
    } finally {
      process.chdir(cwd);
      removeDir(dir);
    }
  });
});
