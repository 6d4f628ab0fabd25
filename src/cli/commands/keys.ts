import type { Command } from 'commander';
import type { ApiKey } from '../../shared/schemas/api-keys.js';
import { doneRecord, eachRecord, examples, idsFrom, paginationOptions, showList, withContext, type PageOptions } from '../command-kit.js';
import type { Context } from '../context.js';
import type { Column } from '../output.js';

export const KEY_COLUMNS: Column<ApiKey>[] = [
  { header: 'id', value: (k) => k.id, id: true },
  { header: 'owner', value: (k) => k.user_id, name: ['user', (k) => k.user_id] },
  // Which key and whether it is still used, readable at 80 columns: the creation time, last, is left out (and said
  // so) before the key is cut below `room`. `never` makes the last use no column of times only (firm): `room` keeps
  // its minute whole.
  { header: 'api_key', value: (k) => k.api_key, room: 20 },
  { header: 'last used', value: (k) => k.last_used_at ?? 'never', room: 17 },
  { header: 'created', value: (k) => k.created_at },
];

/**
 * API key pairs over the API (Admins): what `agora admin list-keys` and `revoke-key` do on the store file, for an
 * administrator who reaches the community only through its server (a PostgreSQL community, another machine).
 */
export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description("API key pairs over the API: list and revoke them (Admins; a secret is never shown)");

  examples(
    paginationOptions(keys.command('list').description('list key pairs, oldest first').option('--user <user>', 'only the keys of this user (id or nickname)')),
    'agora keys list --user ada',
  ).action(
    withContext<PageOptions & { user?: string }>(async (ctx, o) => {
      const user = o.user === undefined ? undefined : await ctx.names.resolve('user', o.user);
      await showList(ctx, '/api_keys', { user_id: user }, KEY_COLUMNS, o);
    }),
  );

  examples(
    keys
      .command('revoke')
      .description('revoke key pairs: every server refuses them from the next request')
      .argument('<key...>', 'key ids (or prefixes), api_key values (ak_…), or - to read them from standard input')
      .option('-y, --yes', 'do not ask for confirmation'),
    'agora keys revoke ak_3f2a… --yes',
    'agora keys list --user mallory --all --fields id | agora keys revoke - --yes',
  ).action(
    withContext<{ yes?: boolean }>(async (ctx, o, args) => {
      const [{ seg }, { confirmOrStop }] = await Promise.all([import('../../client/api-client.js'), import('../confirm.js')]);
      const refs = await idsFrom(args);
      // The keys read once: to find `ak_…` values, to name each key in its question, and to know the one in use.
      const listed = await everyKey(ctx);
      const ids = await keyIds(ctx, refs, listed);
      // The key in use goes last: once it is revoked, every call after it is refused.
      const inUse = listed.find((k) => k.api_key === ctx.apiKey)?.id;
      const ordered = [...ids.filter((id) => id !== inUse), ...ids.filter((id) => id === inUse)];
      await eachRecord(ctx, ordered, (id) => `API key ${id}`, async (id) => {
        const key = listed.find((k) => k.id === id);
        // The key this run uses: revoked, every command after it is refused until a login with another.
        const own = key?.api_key === ctx.apiKey ? ' It is the key you are using: you will have to log in with another.' : '';
        if (key) {
          await ctx.names.load('user', [key.user_id]);
          await confirmOrStop(`Revoke the API key ${key.api_key} of ${ctx.names.get('user', key.user_id) ?? key.user_id}?${own}`, o.yes);
        }
        await ctx.client.delete(`/api_keys/${seg(id)}`);
        ctx.out.done(`API key ${key ? `${key.api_key} (${id})` : id} revoked${own ? ': it was the key you were using' : ''}`, doneRecord(id, 'revoked'));
      }, { adminsOnly: true });
    }),
  );
}

async function everyKey(ctx: Context): Promise<ApiKey[]> {
  const { fetchList } = await import('../list-walk.js');
  return (await fetchList<ApiKey>(ctx.client, '/api_keys', {}, { perPage: 100, all: true })).items;
}

/**
 * The ids the refs name, in their order, each checked before any key is revoked: an id or an id prefix, as tables
 * show them, or the public `api_key` value (`ak_…`) that `agora whoami` and `keys list` print.
 */
async function keyIds(ctx: Context, refs: string[], listed: ApiKey[]): Promise<string[]> {
  const { ID_LISTS, NameNotFoundError } = await import('../names.js');
  const byValue = new Map(listed.map((k) => [k.api_key, k.id]));
  for (const ref of refs) if (ref.startsWith('ak_') && !byValue.has(ref)) throw new NameNotFoundError(`No API key ${ref}`);
  const ids = await ctx.names.fullIds(ID_LISTS.apiKey, refs.filter((ref) => !ref.startsWith('ak_')));
  // Each ref's own id, found by prefix: `fullIds` gives a key named twice (`a a`, an id and its prefix) once.
  const idOf = (ref: string) => ids.find((id) => id.startsWith(ref.trim().toLowerCase()))!;
  return [...new Set(refs.map((ref) => (ref.startsWith('ak_') ? byValue.get(ref)! : idOf(ref))))];
}
