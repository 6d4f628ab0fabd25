import type { Command } from 'commander';
import type { Permissions } from '../../shared/schemas/permissions.js';
import { examples, withContext } from '../command-kit.js';

interface PermissionRow {
  category: string;
  action: string;
  allowed: boolean;
}

export function registerPermissionCommands(program: Command): void {
  const permissions = program.command('permissions').description('what roles allow');

  examples(
    permissions
      .command('show')
      .description("a user's permissions; without --user, those of a non-connected visitor")
      .option('--user <user>', 'user id or nickname'),
    'agora permissions show --user linus',
  ).action(
      withContext<{ user?: string }>(async ({ client, out, names }, o) => {
        const user_id = o.user && (await names.resolve('user', o.user));
        const result = await client.get<Permissions>('/permissions', { user_id });
        if (out.json) return out.printJson(result);
        const items: PermissionRow[] = Object.entries(result).flatMap(([category, actions]) =>
          Object.entries(actions as Record<string, boolean>).map(([action, allowed]) => ({ category, action, allowed })),
        );
        await out.list({ items, total_items: items.length }, [
          { header: 'category', value: (r) => r.category },
          { header: 'action', value: (r) => r.action },
          { header: 'allowed', value: (r) => (out.tty ? (r.allowed ? 'yes' : 'no') : r.allowed) },
        ]);
      }),
    );
}
