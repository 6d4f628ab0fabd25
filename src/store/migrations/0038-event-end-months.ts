import { sql, type Kysely, type Migration } from 'kysely';
import { recount, replaceCounterTriggers, type CounterSpec } from './counting.js';
import { inOneTransaction } from './steps.js';

/**
 * Events counted by the UTC month they end on too, a snapshot: it imports nothing from the live code but the frozen
 * trigger generator (`counting.ts`).
 *
 * The total of `event_date=current_and_coming` added up one kept count a day for every day after today on which an
 * event ends (0033): hundreds of keys for a community that plans a year ahead, more the further ahead it plans. It
 * now adds the days left in this month and the months after it (`events_end_month|*|2027-01`, and `…|1|…` for
 * events of secret pages, as the days), a few dozen keys whatever the span. Only the keys that fix the month are kept.
 *
 * It runs in one transaction, the migrator's (`steps.ts`), and may run again.
 */
export const EVENT_END_MONTHS: CounterSpec = {
  list: 'events_end_month',
  table: 'events',
  dims: ['r.secret_page', 'substr(r.end_date, 1, 7)'],
  flag: 0,
  unkept: (mask) => (mask & 0b10) === 0,
};

export const eventEndMonths: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async (pg) => {
      await replaceCounterTriggers(db, EVENT_END_MONTHS, pg);
      // The events already written, counted (a key a month).
      for (const [key, n] of await recount(db, EVENT_END_MONTHS))
        await sql`insert into list_counts (key, n) values (${key}, ${n}) on conflict (key) do update set n = excluded.n`.execute(db);
      // Counts remembered by readers are retired with their table's version (migration 0010).
      if (!pg) await sql`update table_versions set v = v + 1 where name = 'events'`.execute(db);
    });
  },
};
