import { sql, type Kysely, type Migration } from 'kysely';
import { inOneTransaction } from './steps.js';

/**
 * One spelling of an audit entry's `target_type`: the resource of its action (`user.suspend` is on a `user`, as
 * `user.create` is). The moderation entries were written with the report targets' spelling (`User`, `Status`,
 * `Comment`, `Report`), so `target_type=user` missed every suspension. A snapshot: it imports no live code.
 */
const RESPELT = [
  ['User', 'user'],
  ['Status', 'status'],
  ['Comment', 'comment'],
  ['Report', 'report'],
] as const;

export const auditTargetTypes: Migration = {
  async up(db: Kysely<any>) {
    await inOneTransaction(db, async () => {
      for (const [old, now] of RESPELT) await sql`update audit_log set target_type = ${now} where target_type = ${old}`.execute(db);
    });
  },
};
