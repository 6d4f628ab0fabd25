import type { Command } from 'commander';
import type { AuditEntry } from '../../shared/schemas/audit.js';
import { examples, paginationOptions, showList, withContext, type PageOptions } from '../command-kit.js';
import type { Column } from '../output.js';

export const AUDIT_COLUMNS: Column<AuditEntry>[] = [
  { header: 'when', value: (e) => e.created_at },
  { header: 'actor', value: (e) => e.actor_id ?? 'offline', name: ['user', (e) => e.actor_id] },
  { header: 'action', value: (e) => e.action },
  { header: 'summary', value: (e) => e.summary },
  { header: 'request', value: (e) => e.request_id },
];

interface AuditListOptions extends PageOptions {
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  since?: string;
  until?: string;
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the audit log of administrative acts (Admins)');
  const list = paginationOptions(
    audit
      .command('list')
      .description('list audit entries, newest first')
      .option('--actor <user>', 'only acts of this user (id or nickname)')
      .option('--action <action>', 'only this action, e.g. page_access_request.accept')
      .option('--target-type <type>', 'only acts on this kind of record, e.g. user')
      .option('--target-id <id>', 'only acts on this record')
      .option('--since <time>', 'only from this date or time on (ISO 8601, e.g. 2026-11-01)')
      .option('--until <time>', 'only before this date or time (ISO 8601)'),
  );
  examples(
    list,
    'agora audit list --action page_access_request.accept --since 2026-11-01',
    'agora audit list --actor ada --all --json',
  ).action(
    withContext<AuditListOptions>(async (ctx, o) => {
      if (o.action !== undefined) await checkAction(o.action);
      const actor = o.actor === undefined ? undefined : await ctx.names.resolve('user', o.actor);
      const query = { actor_id: actor, action: o.action, target_type: o.targetType, target_id: o.targetId, since: o.since, until: o.until };
      await showList<AuditEntry>(ctx, '/audit_log', query, AUDIT_COLUMNS, o);
    }),
  );
}

/** A misspelt action would match nothing: a usage error listing the actions there are (exit 2). */
async function checkAction(action: string): Promise<void> {
  const { AUDIT_ACTIONS } = await import('../../shared/schemas/audit.js');
  if ((AUDIT_ACTIONS as readonly string[]).includes(action)) return;
  const { UsageError } = await import('../errors.js');
  throw new UsageError(`--action: no action "${action}"; the actions are ${AUDIT_ACTIONS.join(', ')}`);
}
