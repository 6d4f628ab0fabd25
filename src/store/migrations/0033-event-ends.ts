import { sql, type Kysely, type Migration } from 'kysely';
import { recount, replaceCounterTriggers, type CounterSpec } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * Events counted by the UTC day they end on, a snapshot: it imports nothing from the live code but the frozen
 * trigger generator (`counting.ts`).
 *
 * `event_date=current_and_coming` counted its events by an index range: every event not yet ended, which grows
 * with the community. Its total is now the kept counts of the days after today (a range of keys, one a day) and
 * a count of those ending today from now on (an index range of one day). The keys put the secrecy first
 * (`events_end|*|day`, and `events_end|1|day` for events of secret pages, which a Member's total subtracts), so
 * that each is one contiguous range of keys; only the keys that fix the day are kept.
 *
 * - `events_end (end_date, start_date, id)` becomes `events_end_secret (end_date, secret_page)`: the day's count
 *   of a Member's total tests the secrecy on the index, not on each row; nothing else walked it.
 * - An event's length is kept (`events.longest_ms`, the dated lists' bound) when its dates are updated too, not
 *   only when it is written: an event made longer would otherwise fall out of its list, not out of its total.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export const EVENT_ENDS: CounterSpec = {
  list: 'events_end',
  table: 'events',
  dims: ['r.secret_page', 'substr(r.end_date, 1, 10)'],
  flag: 0,
  unkept: (mask) => (mask & 0b10) === 0,
};

export const eventEnds: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, (pg) => apply(db, pg));
  },
};

async function apply(db: Kysely<any>, pg: boolean): Promise<void> {
  await db.schema.dropIndex('events_end').ifExists().execute();
  await sql`create index if not exists events_end_secret on events (end_date, secret_page)`.execute(db);
  await replaceCounterTriggers(db, EVENT_ENDS, pg);
  // The events already written, counted (a key a day: some hundreds).
  for (const [key, n] of await recount(db, EVENT_ENDS))
    await sql`insert into list_counts (key, n) values (${key}, ${n}) on conflict (key) do update set n = excluded.n`.execute(db);
  if (pg) {
    await sql`drop trigger if exists events_longest_update on events`.execute(db);
    await sql`create trigger events_longest_update after update of start_date, end_date on events for each row execute function events_longest()`.execute(db);
    return;
  }
  await sql`drop trigger if exists events_longest_update`.execute(db);
  await sql`create trigger events_longest_update after update of start_date, end_date on events begin
    insert into list_counts (key, n) values ('events.longest_ms', cast((julianday(new.end_date) - julianday(new.start_date)) * 86400000 as integer) + 1)
    on conflict (key) do update set n = max(n, excluded.n); end`.execute(db);
  // Counts remembered by readers are retired with their table's version (migration 0010).
  await sql`update table_versions set v = v + 1 where name = 'events'`.execute(db);
}
