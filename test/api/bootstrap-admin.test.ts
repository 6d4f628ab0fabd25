import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureApiKey, ensureBootstrapAdmin, issueApiKey, listApiKeys } from '../../src/domain/api-keys.js';
import { AppError } from '../../src/shared/errors.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { testClock } from '../helpers/app.js';
import { removeDir } from '../helpers/server.js';
import { onPostgres, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * The bootstrap administrator is the user named exactly `admin` whose role is Admins. Nicknames are one whatever
 * their case, so a Member named `Admin`, or `admin` in another role, made before it holds its nickname: it is
 * refused, never taken for the administrator and given the operator's key.
 */
async function withStore(run: (store: Store) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'agora-bootstrap-admin-'));
  const store = await openStore(await storeTargetFor(dir), onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
  try {
    await run(store);
  } finally {
    await store.close();
    removeDir(dir);
  }
}

async function member(store: Store, nickname: string): Promise<string> {
  const members = await store.permissionSets.getBySystemKey('members');
  const now = new Date().toISOString();
  const id = 'e'.repeat(32);
  await store.transaction((tx) =>
    tx.users.insert({
      id,
      first_name: 'A',
      last_name: 'Member',
      nickname,
      email: 'member@example.org',
      password_hash: 'x',
      permission_set_id: members!.id,
      slug: 'a-member',
      conditions_accepted_at: now,
      confidentiality_accepted_at: now,
      created_at: now,
      updated_at: now,
    }),
  );
  return id;
}

describe('the bootstrap administrator', () => {
  for (const [nickname, why] of [
    ['Admin', /its nickname is Admin/],
    ['admin', /its role is Members, not Admins/],
  ] as const) {
    it(`is not a Member named ${nickname} made before it: refused (409), and the Member is given no key`, async () => {
      await withStore(async (store) => {
        const deps = { store, clock: testClock() };
        const id = await member(store, nickname);
        const attempts = [() => ensureBootstrapAdmin(deps), () => issueApiKey(deps), () => ensureApiKey(deps, 'ak_bootstrap', 'a bootstrap secret!')];
        for (const attempt of attempts) {
          const refused = await attempt().catch((error: unknown) => error);
          expect(refused).toBeInstanceOf(AppError);
          expect(refused).toMatchObject({ status: 409, code: 'nickname_taken', message: expect.stringMatching(why) });
          expect((refused as Error).message).toContain(`(${id}) holds the nickname admin but is not the bootstrap administrator`);
        }
        expect((await listApiKeys(deps, { user_id: id, page: 1, per_page: 10 })).total_items).toBe(0);
      });
    });
  }

  it('is made once, named exactly admin with the role Admins, and found again by that', async () => {
    await withStore(async (store) => {
      const deps = { store, clock: testClock() };
      const id = await ensureBootstrapAdmin(deps);
      expect(await ensureBootstrapAdmin(deps)).toBe(id);
      const made = await store.users.getById(id);
      expect([made?.nickname, made?.role_system_key]).toEqual(['admin', 'admins']);
      expect((await issueApiKey(deps)).user_id).toBe(id);
    });
  });
});
