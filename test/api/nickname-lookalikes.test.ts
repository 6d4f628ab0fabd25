import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBootstrapAdmin } from '../../src/domain/api-keys.js';
import { AppError } from '../../src/shared/errors.js';
import { lookalikeKey } from '../../src/shared/latin-lookalikes.js';
import { skeletonOf } from '../../src/store/migrations/0047-nickname-lookalikes.js';
import { openStore } from '../../src/store/open.js';
import { userBody } from '../helpers/api.js';
import { testClock, useApp } from '../helpers/app.js';
import { badPlans, type Query } from '../helpers/plans.js';
import { removeDir } from '../helpers/server.js';
import { onPostgres, storeTargetFor, TEST_SECRET_KEY } from '../helpers/store-target.js';

/**
 * A nickname is shown as who someone is, in every list, notification and terminal table: one that looks like another
 * must not pass for it. Nicknames are one whatever their case and compatibility form, and now whatever Cyrillic or
 * Greek letters stand in for Latin ones they look like (`аda` with a Cyrillic а is `ada`), as role names are; a
 * nickname that looks like a taken one is taken (409, as the same one is). Lookups stay exact.
 */
const queries: Query[] = [];
const t = useApp({ storeOptions: { onQuery: (sql, parameters) => queries.push({ sql, parameters }) } });
let n = 0;
/** A Latin nickname nobody holds yet (a letter, then digits: no letter of it has a lookalike listed but its first). */
const fresh = (word: string) => `${word}${Date.now() % 100_000}${n++}`;
const create = (nickname: string) => t.call('POST', '/users', { body: userBody({ nickname }) });
const availability = async (nickname: string) =>
  (await t.ok('GET', `/users/nickname_availability?nickname=${encodeURIComponent(nickname)}`)).available as boolean;
const usersNamed = async (nickname: string): Promise<string[]> =>
  (await t.ok('GET', `/users?nickname=${encodeURIComponent(nickname)}`)).items.map((u: { id: string }) => u.id);
const userCount = async () => (await t.ok('GET', '/users?per_page=1')).total_items as number;

/** The answer to creating `nickname` is the one to creating a nickname that is taken, and nothing is created. */
async function expectTaken(nickname: string): Promise<void> {
  const before = await userCount();
  const res = await create(nickname);
  expect(res.status, JSON.stringify(nickname)).toBe(409);
  expect(res.body.error, JSON.stringify(nickname)).toEqual({
    code: 'nickname_taken',
    message: 'A user already exist with that nickname',
    request_id: expect.any(String),
  });
  expect(await availability(nickname), JSON.stringify(nickname)).toBe(false);
  expect(await userCount()).toBe(before);
}

describe('nicknames that look alike', () => {
  it('takes a nickname with a Cyrillic or Greek lookalike for the Latin one taken, as the same one is', async () => {
    const ada = fresh('ada');
    expect((await create(ada)).status).toBe(201);
    // The same nickname answers so, and a lookalike answers exactly as it does.
    await expectTaken(ada);
    await expectTaken(`\u0430${ada.slice(1)}`); // Cyrillic а
    await expectTaken(`\u0391${ada.slice(1).toUpperCase()}`); // Greek Α, in capitals
    await expectTaken(`\uff41${ada.slice(1)}`.replace('d', '\u0501')); // fullwidth a, Cyrillic ԁ
  });

  it('takes the Latin nickname when its lookalike came first', async () => {
    const cyrillic = `\u0441\u043er\u0430${Date.now() % 100_000}${n++}`; // Cyrillic с, о, а: "cora"
    expect((await create(cyrillic)).status).toBe(201);
    const latin = `cora${cyrillic.slice(4)}`;
    expect(await availability(latin)).toBe(false);
    await expectTaken(latin);
    await expectTaken(latin.toUpperCase());
    // And its own exact nickname, whatever the case, as before.
    await expectTaken(cyrillic.toUpperCase());
  });

  it('finds a lookalike anywhere in a longer nickname', async () => {
    const marcel = fresh('marcel_the_');
    expect((await create(marcel)).status).toBe(201);
    await expectTaken(marcel.replace('a', '\u0430')); // Cyrillic а in the middle
    await expectTaken(marcel.replace('the', 't\u04bb\u0435')); // Cyrillic һ and е
    await expectTaken(marcel.replace('l_', '\u04cf_')); // Cyrillic palochka ӏ for l
    // A capital the table lacks, whose small letter it has: Cyrillic Һ (һ, h).
    await expectTaken(marcel.replace('the', 't\u04ba\u0435'));
  });

  it('reads the letters the table gained as the Latin ones they look like: Ϝ, Ϻ, Ѵ and ѵ', async () => {
    for (const [latin, lookalike] of [
      ['Fred', '\u03dcred'], // Greek digamma Ϝ
      ['Max', '\u03faax'], // Greek san Ϻ
      ['Victor', '\u0474ictor'], // Cyrillic izhitsa Ѵ
      ['vera', '\u0475era'], // Cyrillic small izhitsa ѵ
    ]) {
      const suffix = `${Date.now() % 100_000}${n++}`;
      expect((await create(`${latin}${suffix}`)).status).toBe(201);
      await expectTaken(`${lookalike}${suffix}`);
    }
  });

  it('refuses a nickname holding a blank letter (a Hangul filler), which would pass for the one without it', async () => {
    const ada = fresh('ada');
    expect((await create(ada)).status).toBe(201);
    const before = await userCount();
    for (const blank of ['\u3164', '\u115f', '\u1160', '\uffa0'])
      for (const nickname of [`${ada}${blank}`, `${ada.slice(0, 2)}${blank}${ada.slice(2)}`]) {
        const res = await create(nickname);
        expect(res.status, JSON.stringify(nickname)).toBe(422);
        expect(res.body.error.fields).toEqual([{ field: 'nickname', message: 'must not contain a blank letter (a Hangul filler)' }]);
      }
    expect(await userCount()).toBe(before);
  });

  it('keeps apart nicknames in Cyrillic or Greek that look like no taken one', async () => {
    const suffix = `${Date.now() % 100_000}${n++}`;
    expect((await create(`boss${suffix}`)).status).toBe(201);
    // A small Cyrillic в does not look like b (its capital В looks like B, and is read so).
    expect(await availability(`\u0432oss${suffix}`)).toBe(true);
    expect((await create(`\u0432oss${suffix}`)).status).toBe(201);
    for (const name of [`\u041c\u0430\u0440\u0438\u044f${suffix}`, `\u0395\u03bb\u03ad\u03bd\u03b7${suffix}`]) {
      expect(await availability(name), name).toBe(true);
      expect((await create(name)).status, name).toBe(201);
    }
  });

  it('looks nicknames up exactly, as before: a lookalike finds nobody', async () => {
    const ada = fresh('ada');
    const created = (await create(ada)).body as { id: string };
    expect(await usersNamed(ada)).toEqual([created.id]);
    expect(await usersNamed(ada.toUpperCase())).toEqual([created.id]);
    expect(await usersNamed(`\u0430${ada.slice(1)}`)).toEqual([]);
    expect(await usersNamed(`\u0391${ada.slice(1)}`)).toEqual([]);
    // A nickname with lookalike letters is found by itself.
    const mixed = `\u0441\u043er\u0430${Date.now() % 100_000}${n++}`;
    const other = (await create(mixed)).body as { id: string };
    expect(await usersNamed(mixed)).toEqual([other.id]);
    expect(await usersNamed(`cora${mixed.slice(4)}`)).toEqual([]);
  });

  it('asks whether a nickname is taken, or looks like one taken, of the two unique indexes: no walk of the users', async () => {
    queries.length = 0;
    expect(await availability(fresh('quinn'))).toBe(true);
    const asked = queries.filter((q) => q.sql.includes('nickname_skeleton'));
    expect(asked).toHaveLength(1);
    expect(await badPlans(t.file, asked)).toEqual([]);
  });

  it('refuses to make the bootstrap administrator beside a nickname that looks like admin, saying so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agora-lookalike-admin-'));
    const store = await openStore(await storeTargetFor(dir), onPostgres ? { secretKey: TEST_SECRET_KEY } : {});
    try {
      const members = await store.permissionSets.getBySystemKey('members');
      const now = new Date().toISOString();
      await store.transaction((tx) =>
        tx.users.insert({
          id: 'f'.repeat(32),
          first_name: 'Not',
          last_name: 'Admin',
          nickname: '\u0430dmin',
          email: 'not-admin@example.org',
          password_hash: 'x',
          permission_set_id: members!.id,
          slug: 'not-admin',
          conditions_accepted_at: now,
          confidentiality_accepted_at: now,
          created_at: now,
          updated_at: now,
        }),
      );
      const refused = await ensureBootstrapAdmin({ store, clock: testClock() }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ status: 409, code: 'nickname_taken', message: expect.stringMatching(/looks like admin/) });
    } finally {
      await store.close();
      removeDir(dir);
    }
  });

  it('reads lookalikes as migration 0047 did: a change to the table comes with a migration writing skeletons again', () => {
    // Every character of the Basic Multilingual Plane and the mathematical letters, alone and in a word.
    const differ: string[] = [];
    for (let code = 0; code < 0x1d800; code++) {
      if ((code >= 0xd800 && code < 0xe000) || (code >= 0x10000 && code < 0x1d400)) continue;
      const c = String.fromCodePoint(code);
      for (const text of [c, `${c}da`])
        if (skeletonOf(text) !== lookalikeKey(text)) differ.push(`U+${code.toString(16)} ${JSON.stringify(text)}`);
    }
    expect(differ.slice(0, 10)).toEqual([]);
  });
});
