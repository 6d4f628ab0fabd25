import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/store-target.js';

/**
 * PostgreSQL: each statement is prepared once per connection, named by its text (src/store/postgres.ts), but one whose
 * text grows with what it is given (a stream's sources, a batch insert's rows) goes unnamed: named, a connection would
 * keep one prepared statement per length, without end.
 */
const t = useApp();

describe.skipIf(!onPostgres)('named prepared statements', () => {
  it('names a statement of a few values once per connection, and none of many values', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `id-${i}`);
    const named = await t.store.db.connection().execute(async (conn) => {
      for (const n of [3, 3, 41, 42, 43]) await conn.selectFrom('users').select('id').where('id', 'in', ids(n)).execute();
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${'%"id" in (%'}`.execute(conn);
      return rows.map((row) => (row.statement.match(/\$\d+/g) ?? []).length);
    });
    expect(named).toEqual([3]);
  });
});
