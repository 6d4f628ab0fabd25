import type { Migration } from 'kysely';
import { accessNotify } from './0011-access-notify.js';
import { audit } from './0006-audit.js';
import { auditTargetTypes } from './0036-audit-target-types.js';
import { keyUseUnversioned } from './0037-key-use-unversioned.js';
import { eventEndMonths } from './0038-event-end-months.js';
import { reportCounts } from './0039-report-counts.js';
import { auditCounts } from './0040-audit-counts.js';
import { auditFilters } from './0016-audit-filters.js';
import { commentAuthors } from './0032-comment-authors.js';
import { concurrency } from './0008-concurrency.js';
import { content } from './0003-content.js';
import { eventEnds } from './0033-event-ends.js';
import { keyOwners } from './0034-key-owners.js';
import { keyCount } from './0035-key-count.js';
import { flagCounts } from './0015-flag-counts.js';
import { flatCost } from './0005-flat-cost.js';
import { followPairs } from './0020-follow-pairs.js';
import { foundation } from './0001-foundation.js';
import { hardening } from './0004-hardening.js';
import { keptEvents } from './0019-kept-events.js';
import { keptRecords } from './0017-kept-records.js';
import { leanWrites } from './0012-lean-writes.js';
import { membership } from './0002-membership.js';
import { moderation } from './0030-moderation.js';
import { notificationWalks } from './0018-notification-walks.js';
import { reportQueue } from './0031-report-queue.js';
import { secretFollows } from './0014-secret-follows.js';
import { singleWalks } from './0007-single-walks.js';
import { tableVersions } from './0010-table-versions.js';
import { likesList } from './0041-likes-list.js';
import { commentsByAuthor } from './0042-comments-by-author.js';
import { removedList } from './0043-removed-list.js';
import { notifyAtInsert } from './0044-notify-at-insert.js';
import { unquoteRemovedReports } from './0045-unquote-removed-reports.js';
import { hiddenSlugs } from './0046-hidden-slugs.js';
import { nicknameLookalikes } from './0047-nickname-lookalikes.js';
import { countedByStatement } from './0048-counted-by-statement.js';

/** Numbered migrations, applied in order at start. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-membership': membership,
  '0003-content': content,
  '0004-hardening': hardening,
  '0005-flat-cost': flatCost,
  '0006-audit': audit,
  '0007-single-walks': singleWalks,
  '0008-concurrency': concurrency,
  '0010-table-versions': tableVersions,
  '0011-access-notify': accessNotify,
  '0012-lean-writes': leanWrites,
  '0014-secret-follows': secretFollows,
  '0015-flag-counts': flagCounts,
  '0016-audit-filters': auditFilters,
  '0017-kept-records': keptRecords,
  '0018-notification-walks': notificationWalks,
  '0019-kept-events': keptEvents,
  '0020-follow-pairs': followPairs,
  '0030-moderation': moderation,
  '0031-report-queue': reportQueue,
  '0032-comment-authors': commentAuthors,
  '0033-event-ends': eventEnds,
  '0034-key-owners': keyOwners,
  '0035-key-count': keyCount,
  '0036-audit-target-types': auditTargetTypes,
  '0037-key-use-unversioned': keyUseUnversioned,
  '0038-event-end-months': eventEndMonths,
  '0039-report-counts': reportCounts,
  '0040-audit-counts': auditCounts,
  '0041-likes-list': likesList,
  '0042-comments-by-author': commentsByAuthor,
  '0043-removed-list': removedList,
  '0044-notify-at-insert': notifyAtInsert,
  '0045-unquote-removed-reports': unquoteRemovedReports,
  '0046-hidden-slugs': hiddenSlugs,
  '0047-nickname-lookalikes': nicknameLookalikes,
  '0048-counted-by-statement': countedByStatement,
};
