import type { Command } from 'commander';
import type { AuditEntry } from '../../shared/schemas/audit.js';
import { examples, inAnyCase, paginationOptions, showList, validateBody, withContext, type PageOptions } from '../command-kit.js';
import { ID, ID_LISTS, type IdList, type Names } from '../names.js';
import type { Column } from '../output.js';

export const AUDIT_COLUMNS: Column<AuditEntry>[] = [
  { header: 'when', value: (e) => e.created_at },
  { header: 'actor', value: (e) => e.actor_id ?? 'offline', name: ['user', (e) => e.actor_id] },
  { header: 'action', value: (e) => e.action, room: 14 },
  // What happened, readable at 80 columns: the request id, last, is left out (and said so) before the summary is
  // cut below this; `--fields …,request` brings it back.
  { header: 'summary', value: (e) => e.summary, room: 24 },
  { header: 'request', value: (e) => e.request_id, id: true },
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
      .option('--target-type <type>', "only acts on this kind of record, the action's resource, e.g. user")
      .option('--target-id <ref>', "only acts on this record: its id; a user's nickname or id prefix; with --target-type or --action, an id prefix of that kind (a role: its name)")
      .option('--since <time>', 'only from this date or time on (ISO 8601, e.g. 2026-11-01)')
      .option('--until <time>', 'only before this date or time (ISO 8601)'),
  );
  examples(
    list,
    'agora audit list --action page_access_request.accept --since 2026-11-01',
    'agora audit list --actor ada --all --json',
    'agora audit list --target-id ada        # every act on the user ada',
  ).action(
    withContext<AuditListOptions>(async (ctx, o) => {
      const { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, AuditLogQuery, targetTypeOf } = await import('../../shared/schemas/audit.js');
      if (o.action !== undefined) o.action = await checkChoice('--action', 'action', o.action, AUDIT_ACTIONS);
      // The times with the API's own schema, before any request (exit 2, the flag named).
      const { since, until } = await validateBody(AuditLogQuery.pick({ since: true, until: true }), { since: o.since, until: o.until });
      // A window that ends before it starts holds nothing: a mistake, said (exit 2), not an empty list.
      if (since && until && Date.parse(since) >= Date.parse(until)) {
        const { UsageError } = await import('../errors.js');
        throw new UsageError(`--since ${o.since} is not before --until ${o.until} (which is left out): no entry can be in both`);
      }
      if (o.targetType !== undefined) {
        // Spelt as the reports spell theirs (`User`, `PageAccessRequest`), a type is the log's own (`user`, …).
        o.targetType = o.targetType.replace(/([a-z])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();
        o.targetType = await checkChoice('--target-type', 'target type', o.targetType, AUDIT_TARGET_TYPES);
      }
      const actor = o.actor === undefined ? undefined : await ctx.names.resolve('user', o.actor);
      // An action is on its resource's records (`status.remove`: a status), so a prefix with it names one of those.
      const targetType = o.targetType ?? (o.action && targetTypeOf(o.action as (typeof AUDIT_ACTIONS)[number]));
      const target = o.targetId === undefined ? undefined : await targetIdOf(ctx.names, targetType, o.targetId);
      const query = { actor_id: actor, action: o.action, target_type: o.targetType, target_id: target, since: o.since, until: o.until };
      await showList<AuditEntry>(ctx, '/audit_log', query, AUDIT_COLUMNS, o);
    }),
  );
}

/** A misspelt filter would match nothing: a usage error listing the values there are (exit 2). */
async function checkChoice(flag: string, what: string, value: string, values: readonly string[]): Promise<string> {
  // In any case, as every enum-like option (`--action USER.SUSPEND`).
  const found = inAnyCase(values, value);
  if (found !== undefined) return found;
  const { UsageError } = await import('../errors.js');
  throw new UsageError(`${flag}: no ${what} "${value}"; the ${what}s are ${values.join(', ')}`);
}

/**
 * The id a `--target-id` names, as everywhere else: a whole id as it is; for a user (or with no type) a nickname
 * or an id prefix, for a role its name, and an id prefix among the records of the lists the CLI reads by prefix.
 */
async function targetIdOf(names: Names, type: string | undefined, ref: string): Promise<string> {
  if (ID.test(ref.trim())) return ref.trim();
  if (type === undefined || type === 'user') return names.resolve('user', ref);
  if (type === 'permission_set') return names.resolve('role', ref);
  const lists: Record<string, IdList> = {
    status: ID_LISTS.status,
    report: ID_LISTS.report,
    invite: ID_LISTS.invite,
    page_access_request: ID_LISTS.accessRequest,
    webhook: ID_LISTS.webhook,
    api_key: ID_LISTS.apiKey,
  };
  const list = lists[type];
  if (list) return (await names.fullIds(list, [ref]))[0]!;
  const { UsageError } = await import('../errors.js');
  throw new UsageError(`--target-id: give the ${type.replace(/_/g, ' ')}'s whole id`);
}
