import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { prepared } from '../../src/store/prepared.js';
import type { Database } from '../../src/store/schema.js';
import { useApp } from '../helpers/app.js';

/**
 * Statements built once and run with values (`src/store/prepared.ts`), on the real store (SQLite, or PostgreSQL
 * with AGORA_TEST_DB): the values of each call reach the database by name, constants the builder wrote stay.
 */
describe('prepared statements', () => {
  const t = useApp();

  let builds = 0;
  const pageNamed = prepared<{ id: string; viewer: string }, { id: string; name: string }>((db: Kysely<Database>, p) => {
    builds++;
    return db
      .selectFrom('pages')
      .select(['pages.id', 'pages.name'])
      .where('pages.id', '=', p.id)
      // A constant of the statement's own ('secret') between two values.
      .where((eb) => eb.or([eb('pages.privacy', '!=', 'secret'), eb('pages.user_id', '=', p.viewer)]));
  });

  it('run with each call’s values, in and out of transactions, and keep the statement’s own constants', async () => {
    const config = await t.call('POST', '/page_configurations', { body: { name: 'Prepared' } });
    const made = [];
    for (const [name, privacy] of [
      ['Open one', 'public'],
      ['Hidden one', 'secret'],
    ])
      made.push((await t.call('POST', '/pages', { body: { name, page_configuration_id: config.body.id, privacy, user_id: t.admin.id } })).body);
    const [open, hidden] = made;
    const db = t.store.db;
    expect(await pageNamed.readFirst(db, { id: open.id, viewer: 'nobody' })).toEqual({ id: open.id, name: 'Open one' });
    // The secret page: to its creator only (the constant 'secret' still compared, the viewer bound by name).
    expect(await pageNamed.readFirst(db, { id: hidden.id, viewer: 'nobody' })).toBeUndefined();
    expect(await pageNamed.first(db, { id: hidden.id, viewer: t.admin.id })).toEqual({ id: hidden.id, name: 'Hidden one' });
    // Inside a transaction: the transaction's own writes are seen.
    await t.store.transaction(async (tx) => {
      await tx.db.updateTable('pages').set({ name: 'Renamed' }).where('id', '=', open.id).execute();
      expect(await pageNamed.readFirst(tx.db, { id: open.id, viewer: 'nobody' })).toEqual({ id: open.id, name: 'Renamed' });
      expect((await pageNamed.execute(tx.db, { id: open.id, viewer: 'nobody' })).map((r) => r.name)).toEqual(['Renamed']);
      expect((await pageNamed.read(tx.db, { id: open.id, viewer: 'nobody' })).map((r) => r.name)).toEqual(['Renamed']);
    });
    expect(await pageNamed.readFirst(db, { id: open.id, viewer: 'nobody' })).toEqual({ id: open.id, name: 'Renamed' });
    // The same statement each time: compiled once, the values alone differ.
    const a = pageNamed.compile(db, { id: 'a', viewer: 'x' });
    const b = pageNamed.compile(db, { id: 'b', viewer: 'y' });
    expect(b.sql).toBe(a.sql);
    expect(a.parameters).toEqual(['a', 'secret', 'x']);
    expect(b.parameters).toEqual(['b', 'secret', 'y']);
    // Built once for the store's dialect, whatever the calls, the connection or the transaction.
    expect(builds).toBe(1);
  });

  it('refuse a value that does not become a parameter (looked at, or written into the SQL) when first built', () => {
    // A statement whose shape depends on a value cannot be built once: the value is looked at, never bound.
    const shaped = prepared<{ name: string; privacy: string }>((db: Kysely<Database>, p) => {
      const q = db.selectFrom('pages').select('id').where('name', '=', p.name);
      return p.privacy ? q.where('privacy', '=', 'public') : q;
    });
    expect(() => shaped.compile(t.store.db, { name: 'x', privacy: 'public' })).toThrow(/the value "privacy" is not a parameter of select/);
    // Written into the SQL as a literal: Kysely refuses the stand-in itself.
    const literal = prepared<{ name: string }>((db: Kysely<Database>, p) => db.selectFrom('pages').select('id').where('name', '=', sql.lit(p.name)));
    expect(() => literal.compile(t.store.db, { name: 'x' })).toThrow(/invalid immediate value/);
  });

  it('refuse a value left undefined (bound, it would write NULL where an INSERT would have left the column to its default)', async () => {
    expect(() => pageNamed.compile(t.store.db, { id: 'a' } as { id: string; viewer: string })).toThrow(/no value for "viewer"/);
    // null is a value: bound as such (no page has a null id).
    expect(await pageNamed.readFirst(t.store.db, { id: null as unknown as string, viewer: 'x' })).toBeUndefined();
  });
});
