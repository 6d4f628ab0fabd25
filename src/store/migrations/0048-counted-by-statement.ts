import { sql, type Kysely, type Migration } from 'kysely';
import { keyOf, masks, type CounterSpec } from './counting.js';
import { REPORT_COUNTS } from './0039-report-counts.js';
import { AUDIT_COUNTS } from './0040-audit-counts.js';
import { REMOVED_COUNTS } from './0043-removed-list.js';
import { inOneTransaction } from './steps.js';

/**
 * On PostgreSQL, the counts of reports, audit entries and removed content are kept once a statement instead of once
 * a row, a snapshot: it imports nothing from the live code but the frozen key generator (`counting.ts`) and the three
 * lists' specifications. Their rows are written many to a statement (the comments of a removed status archived, the
 * reports on them settled and audited), and the keys each row moves are mostly the same few (every comment of one author
 * removed by one Admin moves the same eight). PostgreSQL keeps each version of a row updated in a transaction until
 * it commits, so a row trigger's thousandth update of a key walked past the 999 before it: removing a status with
 * 8,000 comments took half a minute, growing with the square of their number. A statement's trigger reads the rows
 * it wrote (its transition tables), sums what each key moves and updates each key once, in key order as the row
 * triggers did (so that writers lock shared counts in one order). SQLite updates a row in place and keeps its row
 * triggers. The counts are the same; the triggers keep their names (`admin copy` sets them aside by name).
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export function statementTriggers(spec: CounterSpec): string[] {
  // Every kept key of each row of `rows`, with `delta`: these lists' dimensions are plain columns (no flag).
  const moves = (rows: string, delta: number) =>
    `select x.k, ${delta} from ${rows} r cross join lateral (values ${masks(spec)
      .map((m) => `(${keyOf(spec, m, spec.dims)})`)
      .join(', ')}) as x(k)`;
  const upsert = (from: string) =>
    `insert into list_counts (key, n) select k, sum(d) from (${from}) as v(k, d) group by k having sum(d) <> 0 order by k ` +
    `on conflict (key) do update set n = list_counts.n + excluded.n;`;
  const trigger = (event: string, referencing: string, body: string) => [
    `create function ${spec.list}_counts_${event}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`,
    `create trigger ${spec.list}_counts_${event} after ${event} on ${spec.table} referencing ${referencing} ` +
      `for each statement execute function ${spec.list}_counts_${event}()`,
  ];
  return [
    ...trigger('insert', 'new table as new_rows', upsert(moves('new_rows', 1))),
    ...trigger('delete', 'old table as old_rows', upsert(moves('old_rows', -1))),
    // Every update (a trigger with transition tables cannot name its columns): one that moves no count sums to
    // nothing and writes nothing.
    ...trigger('update', 'old table as old_rows new table as new_rows', upsert(`${moves('old_rows', -1)} union all ${moves('new_rows', 1)}`)),
  ];
}

/** The lists counted by statement on PostgreSQL. */
export const COUNTED_BY_STATEMENT: readonly string[] = [REPORT_COUNTS.list, AUDIT_COUNTS.list, REMOVED_COUNTS.list];

export const countedByStatement: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async (pg) => {
      if (!pg) return;
      for (const spec of [REPORT_COUNTS, AUDIT_COUNTS, REMOVED_COUNTS]) {
        for (const event of ['insert', 'delete', 'update']) {
          await sql.raw(`drop trigger if exists ${spec.list}_counts_${event} on ${spec.table}`).execute(db);
          await sql.raw(`drop function if exists ${spec.list}_counts_${event}()`).execute(db);
        }
        for (const statement of statementTriggers(spec)) await sql.raw(statement).execute(db);
      }
    });
  },
};
