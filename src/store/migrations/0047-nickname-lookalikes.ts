import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './steps.js';

/**
 * The Cyrillic and Greek letters read as the Latin ones they look like, as agora read them on this day (a copy of
 * src/shared/latin-lookalikes.ts: a migration never imports live code), each in the case it looks alike in.
 */
const LOOKALIKES = new Map<string, string>([
  // Cyrillic capitals: А В Е К М Н О Р С Т У Х Ѕ І Ј Ӏ Ԛ Ԝ Ү Ѵ
  ['\u0410', 'A'], ['\u0412', 'B'], ['\u0415', 'E'], ['\u041a', 'K'], ['\u041c', 'M'], ['\u041d', 'H'],
  ['\u041e', 'O'], ['\u0420', 'P'], ['\u0421', 'C'], ['\u0422', 'T'], ['\u0423', 'Y'], ['\u0425', 'X'],
  ['\u0405', 'S'], ['\u0406', 'I'], ['\u0408', 'J'], ['\u04c0', 'I'], ['\u051a', 'Q'], ['\u051c', 'W'],
  ['\u04ae', 'Y'], ['\u0474', 'V'],
  // Cyrillic small letters: а е о р с у х ѕ і ј һ ԁ ԛ ԝ ӏ ү ѵ
  ['\u0430', 'a'], ['\u0435', 'e'], ['\u043e', 'o'], ['\u0440', 'p'], ['\u0441', 'c'], ['\u0443', 'y'],
  ['\u0445', 'x'], ['\u0455', 's'], ['\u0456', 'i'], ['\u0458', 'j'], ['\u04bb', 'h'], ['\u0501', 'd'],
  ['\u051b', 'q'], ['\u051d', 'w'], ['\u04cf', 'l'], ['\u04af', 'y'], ['\u0475', 'v'],
  // Greek capitals: Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ Ϲ Ϳ, and the archaic Ϝ (digamma) and Ϻ (san)
  ['\u0391', 'A'], ['\u0392', 'B'], ['\u0395', 'E'], ['\u0396', 'Z'], ['\u0397', 'H'], ['\u0399', 'I'],
  ['\u039a', 'K'], ['\u039c', 'M'], ['\u039d', 'N'], ['\u039f', 'O'], ['\u03a1', 'P'], ['\u03a4', 'T'],
  ['\u03a5', 'Y'], ['\u03a7', 'X'], ['\u03f9', 'C'], ['\u037f', 'J'], ['\u03dc', 'F'], ['\u03fa', 'M'],
  // Greek small letters: α ι κ ν ο ρ υ ϲ ϳ
  ['\u03b1', 'a'], ['\u03b9', 'i'], ['\u03ba', 'k'], ['\u03bd', 'v'], ['\u03bf', 'o'], ['\u03c1', 'p'],
  ['\u03c5', 'u'], ['\u03f2', 'c'], ['\u03f3', 'j'],
]);

/**
 * A nickname's skeleton as agora made it on this day (a copy of `lookalikeKey`): its lookalike letters read as Latin
 * ones, compatibility-normalised, lower case. (Exported for the test that compares it with the live one.)
 */
export const skeletonOf = (nickname: string): string => once(once(nickname));
const once = (nickname: string): string =>
  Array.from(nickname.normalize('NFKD'), (c) => LOOKALIKES.get(c) ?? c)
    .join('')
    .normalize('NFKC')
    .toLowerCase();

/** Users read, and rows set aside, per statement. */
const BATCH = 500;

/**
 * Nicknames unique once lookalike letters are read as Latin ones, as role names are: a `nickname_skeleton` column
 * (`аda` with a Cyrillic а is `ada`) under a unique index. Users who already collide keep their nicknames: the oldest
 * (lowest id) of them keeps the skeleton, the others none (null, which collides with nothing), so that the migration
 * never fails on what a community already holds; nobody new can take a nickname that looks like theirs. May run again
 * (its record lost, or a test running an older one again): the skeletons are written anew, to the same.
 */
export const nicknameLookalikes: Migration = {
  async up(db: Kysely<any>) {
    const column = isPostgres(db)
      ? sql`select 1 from information_schema.columns
          where table_schema = current_schema() and table_name = 'users' and column_name = 'nickname_skeleton'`
      : sql`select 1 from pragma_table_info('users') where name = 'nickname_skeleton'`;
    if ((await column.execute(db)).rows.length === 0)
      await db.schema.alterTable('users').addColumn('nickname_skeleton', 'varchar(200)').execute();
    // Run again, the skeletons are written anew: unique once written, not meanwhile.
    await db.schema.dropIndex('users_nickname_skeleton_unique').ifExists().execute();
    // A nickname without a lookalike letter (most) has its key for skeleton: one statement for all of them. The few
    // others are found by reading every nickname once, in id order, a batch at a time.
    await db.updateTable('users').set((eb) => ({ nickname_skeleton: eb.ref('nickname_key') })).execute();
    const lookalikes: { id: string; skeleton: string }[] = [];
    for (let after = ''; ; ) {
      const users = (await db
        .selectFrom('users')
        .select(['id', 'nickname', 'nickname_key'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(BATCH)
        .execute()) as { id: string; nickname: string; nickname_key: string | null }[];
      if (users.length === 0) break;
      for (const user of users) {
        const skeleton = skeletonOf(user.nickname);
        if (skeleton !== user.nickname_key) lookalikes.push({ id: user.id, skeleton });
      }
      after = users[users.length - 1]!.id;
    }
    // Those hold their key, not their skeleton: set aside (null) until their turn, as losers stay. The others'
    // skeletons are unique as their keys are: the index is made now, and serves the lookups below.
    const setSkeleton = (ids: string[], skeleton: string | null) =>
      db.updateTable('users').set({ nickname_skeleton: skeleton }).where('id', 'in', ids).execute();
    const ids = lookalikes.map((l) => l.id);
    for (let i = 0; i < ids.length; i += BATCH) await setSkeleton(ids.slice(i, i + BATCH), null);
    const index = db.schema.createIndex('users_nickname_skeleton_unique').on('users').column('nickname_skeleton');
    await index.unique().execute();
    // In id order: a skeleton goes to the oldest user it is the skeleton of, whoever held it.
    for (const { id, skeleton } of lookalikes) {
      const held = db.selectFrom('users').select('id').where('nickname_skeleton', '=', skeleton);
      const holder = (await held.executeTakeFirst())?.id as string | undefined;
      if (holder !== undefined && holder < id) continue;
      if (holder !== undefined) await setSkeleton([holder], null);
      await setSkeleton([id], skeleton);
    }
  },
};
