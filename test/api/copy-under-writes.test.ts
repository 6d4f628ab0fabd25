import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApp } from '../helpers/app.js';
import { copyStore } from '../../src/store/copy.js';
import { openStore } from '../../src/store/open.js';
import { onPostgres, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

const options = onPostgres ? { secretKey: TEST_SECRET_KEY } : {};

/**
 * `agora admin copy` while a server writes to the source: the copy is the source's snapshot at its start, checked
 * against that snapshot (not against the source as it is by then), and a copy that fails leaves its destination empty.
 */
describe('a copy of a store being written to', () => {
  it('is the snapshot at its start, whatever is written meanwhile', async () => {
    const t = await startApp();
    const member = await t.member();
    const first = (await t.ok('POST', '/statuses', member, { user_id: member.user.id, content: 'before the copy' })).id as string;
    // Another process writing to the same store (its own connection), while the copy runs.
    const writer = await openStore(t.file, options);
    const pgDir = join(t.dir, 'copy');
    mkdirSync(pgDir);
    const to = await openStore(onPostgres ? await storeTargetFor(pgDir, { empty: true }) : join(t.dir, 'copy.db'), options);
    try {
      const written: string[] = [];
      const report = await copyStore(t.store, to, async ({ table }) => {
        if (table !== 'statuses' || written.length > 0) return;
        // (Not through the app: on SQLite its one connection is the copy's, held until the copy ends.)
        await writer.transaction(async (tx) => {
          const status = { ...(await tx.statuses.getById(first))!, id: `${'f'.repeat(31)}0`, content: 'during the copy' };
          await tx.statuses.insert(status);
          written.push(status.id);
        });
      });
      expect(written).toHaveLength(1);
      const statuses = report.tables.find((row) => row.table === 'statuses')!;
      expect(statuses).toEqual({ table: 'statuses', source: 1, destination: 1 });
      // And says what was written meanwhile (a status; the server's fan-out may have moved on too).
      expect(report.changedSince).toContainEqual({ table: 'statuses', snapshot: 1, now: 2 });
      // The source has it, the copy does not: it came after the snapshot.
      expect(await t.store.statuses.getById(written[0]!)).toBeDefined();
      expect(await to.statuses.getById(written[0]!)).toBeUndefined();
      expect(await to.checkCounts()).toEqual([]);
    } finally {
      await to.close();
      await writer.close();
      await t.close();
    }
  });

  it('leaves its destination empty when it fails part-way, to be copied into again', async () => {
    const t = await startApp();
    const member = await t.member();
    await t.ok('POST', '/statuses', member, { user_id: member.user.id, content: 'kept' });
    const pgDir = join(t.dir, 'copy');
    mkdirSync(pgDir);
    const to = await openStore(onPostgres ? await storeTargetFor(pgDir, { empty: true }) : join(t.dir, 'copy.db'), options);
    try {
      const failing = copyStore(t.store, to, ({ table }) => {
        if (table === 'statuses') throw new Error('the disk filled up');
      });
      await expect(failing).rejects.toThrow('the disk filled up');
      expect(await to.db.selectFrom('users').select('id').execute()).toEqual([]);
      const report = await copyStore(t.store, to);
      expect(report.tables.find((row) => row.table === 'users')).toEqual({ table: 'users', source: 2, destination: 2 });
      expect((await to.users.getById(member.user.id))?.nickname).toBe(member.user.nickname);
    } finally {
      await to.close();
      await t.close();
    }
  });
});
