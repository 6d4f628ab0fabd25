import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Reports stop quoting content removed before this version: since it, a removal empties the excerpt of every report
 * on what it removes (docs/api.md: `excerpt` is null once the content is removed); the reports on content removed
 * earlier kept theirs, and their reporters still read it. Emptied here as a removal empties them. May run again.
 */
export const unquoteRemovedReports: Migration = {
  async up(db: Kysely<any>) {
    await sql`update reports set excerpt = '' where excerpt <> '' and target_type in ('Status', 'Comment') and exists (
      select 1 from removed_content rc where rc.id = reports.target_id and rc.target_type = reports.target_type)`.execute(db);
  },
};
