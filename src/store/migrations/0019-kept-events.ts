import type { Kysely, Migration } from 'kysely';
import { inOneTransaction, isPostgres } from './steps.js';
import { versionRecords } from './0017-kept-records.js';

/** The columns of an event its record is made of (`eventParts` in `records-json.ts`): all but `secret_page`. */
export const EVENT_COLUMNS = [
  'id',
  'name',
  'slug',
  'description',
  'user_id',
  'page_id',
  'start_date',
  'end_date',
  'places_limit',
  'attendees_count',
  'tickets',
  'created_at',
  'updated_at',
] as const;

/**
 * Events kept by id as text, as follows, access requests and invites are (migration 0017): the events list's
 * walk reads its index alone, not each event's row (at a million pages, a random row of 100,000 each) and its
 * `json_object` of fourteen fields. Their version, `records:events`, moves with every update of a column of the
 * record (an attendance moves `attendees_count`) and every delete; an event created does not move it.
 *
 * PostgreSQL keeps no versions (migration 0010). It runs in the migrator's transaction; it may run again.
 */
export const keptEvents: Migration = {
  async up(db: Kysely<any>) {
    if (isPostgres(db)) return;
    await inOneTransaction(db, () => versionRecords(db, 'events', EVENT_COLUMNS));
  },
};
