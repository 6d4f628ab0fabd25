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
      for (const target of ['postgress://agora:hunter2@db.internal:5432/agora', 'postgresql:/agora@db.internal/agora', 'db.internal:5432/agora', 'localhost:5432']) {
        const opened = openStore(target);
        await expect(opened, target).rejects.toThrow(/names no store: a PostgreSQL database is a URL beginning postgres:\/\//);
        await expect(opened).rejects.not.toThrow(/hunter2/);
      }
      expect(readdirSync(dir)).toEqual([]);
      // A path is still a path.
      const store = await openStore('community.db');
      await store.close();
      expect(readdirSync(dir)).toContain('community.db');
    } finally {
      process.chdir(cwd);
      removeDir(dir);
    }
  });
});
