import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, expect, it } from 'vitest';
import { CopyProgressBar } from '../../src/cli/copy-progress.js';
import { issueApiKey } from '../../src/domain/api-keys.js';
import { newId } from '../../src/shared/ids.js';
import { copyStore } from '../../src/store/copy.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { removeDir } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'agora-copy-bar-'));
afterAll(() => removeDir(dir));

it('a copy between two SQLite files lets the progress bar redraw while it runs, not only at its end', async () => {
  const from = await openSqliteStore(join(dir, 'from.db'));
  const at = '2026-01-01T00:00:00.000Z';
  // Rows straight into the file (as an import would leave them): 5,000 follows of no one in particular.
  const { user_id } = await issueApiKey({ store: from, clock: () => new Date() });
  for (let i = 0; i < 10; i++)
    await from.db.insertInto('follows').values(Array.from({ length: 500 }, () => ({ id: newId(), user_id, followable_type: 'User', followable_id: newId(), created_at: at })) as never).execute();
  const to = await openSqliteStore(join(dir, 'to.db'));
  const out = new PassThrough();
  const bar = new CopyProgressBar(out as unknown as NodeJS.WriteStream);
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  const report = await copyStore(from, to, bar.update);
  clearInterval(ticker);
  bar.stop();
  expect(report.rows).toBeGreaterThan(5_000);
  // Without the turns, the timers waited for the copy's end: none ran while it went on.
  expect(turns).toBeGreaterThan(5);
  await Promise.all([from.close(), to.close()]);
});
