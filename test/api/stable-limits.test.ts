import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withStableLimits } from '../../src/store/sqlite.js';

/**
 * SQLite lets a bound LIMIT's value steer a statement's plan and then prepares the statement again whenever
 * that parameter is bound anew; the store writes its bound limits and offsets as expressions instead.
 */
describe('bound limits and offsets', () => {
  it('are written as expressions wherever Kysely writes them, and nothing else is touched', () => {
    expect(withStableLimits('select "i"."id" from "invites" as "i" where "i"."id" > ? order by "i"."id" asc limit ?')).toBe(
      'select "i"."id" from "invites" as "i" where "i"."id" > ? order by "i"."id" asc limit ? + 0',
    );
    expect(withStableLimits('select * from (select a from t order by a limit ?) union all select * from (select b from u limit ? offset ?)')).toBe(
      'select * from (select a from t order by a limit ? + 0) union all select * from (select b from u limit ? + 0 offset ? + 0)',
    );
    // A literal limit, a column named limit, a limit already an expression.
    expect(withStableLimits('select 1 limit ?\noffset ?')).toBe('select 1 limit ? + 0\noffset ? + 0');
    for (const text of [
      'select 1 limit 26',
      'select "limit" from t where "limit" = ?',
      'select places_limit from events where places_limit > ?',
      'select 1 limit ? + 0',
      'select 1 limit ?  * 2',
      'select 1 limit ?  || 0',
      'select 1 limit ?, ?',
      'select 1 limit ?1',
      'select x from t where y = ?',
    ])
      expect(withStableLimits(text)).toBe(text);
  });

  it('limit and skip as the bound values say', () => {
    const db = new Database(':memory:');
    try {
      db.exec('create table t (n integer primary key)');
      db.exec('insert into t (n) with recursive s(n) as (select 1 union all select n + 1 from s where n < 50) select n from s');
      const statement = db.prepare(withStableLimits('select n from t order by n limit ? offset ?')).pluck();
      expect(statement.all(3, 0)).toEqual([1, 2, 3]);
      expect(statement.all(2, 10)).toEqual([11, 12]);
      expect(statement.all(5, 48)).toEqual([49, 50]);
    } finally {
      db.close();
    }
  });
});
