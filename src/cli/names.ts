import type { ApiClient } from '../client/api-client.js';
import { fetchList } from './list-walk.js';
import { UsageError } from './errors.js';
import { selfCommand } from './self-command.js';

export type NameKind = 'user' | 'page' | 'event' | 'config' | 'role';

interface Kind {
  label: string;
  path: string;
  /** The exact-match filter of the list endpoint that finds a record by what people type. */
  filter: string;
  /** What people call a record of this kind. */
  nameOf: (record: Record<string, unknown>) => string;
}

const KINDS: Record<NameKind, Kind> = {
  user: { label: 'user', path: '/users', filter: 'nickname', nameOf: (r) => String(r.nickname) },
  page: { label: 'page', path: '/pages', filter: 'slug', nameOf: (r) => String(r.name) },
  event: { label: 'event', path: '/events', filter: 'slug', nameOf: (r) => String(r.name) },
  config: { label: 'page configuration', path: '/page_configurations', filter: 'name', nameOf: (r) => String(r.name) },
  role: { label: 'role', path: '/permission_sets', filter: 'name', nameOf: (r) => String(r.name) },
};

/** A whole id, as the API gives it. */
export const ID = /^[0-9a-f]{32}$/;
/** An id as a narrow table shows it: a prefix of at least 6 of its characters. */
export const ID_PREFIX = /^[0-9a-f]{6,31}$/;
/** The API's bound on `ids=` (MAX_IDS in the shared schemas, not imported: that module brings zod). */
const MAX_IDS = 100;

/** Where records of one kind are listed, to find the one an id prefix names. */
export interface IdList {
  label: string;
  /** The list's path, or how to find it (asked only when a prefix is given). */
  path: string | ((client: ApiClient) => Promise<string>);
  /** The list is a bare array (notifications), not `{items, total_items}`. */
  bare?: boolean;
  /** A record in an error listing several: its id and what people call it. */
  describe?: (record: Record<string, unknown>) => string;
  /** Which records the list holds, for the error naming none ('you may see'). */
  among?: string;
  /** The list is newest first, by id: a prefix's records come before every id below it. */
  newestFirst?: boolean;
  /**
   * Where records gone from the list are still named, looked at only when a prefix matches nothing listed: a
   * removed status leaves every list, but Admins still read it, and the audit log (theirs alone) names it.
   */
  gone?: { path: string; query: Record<string, string>; id: (record: Record<string, unknown>) => string };
}

/** The lists of the kinds commands take by id alone. */
export const ID_LISTS = {
  accessRequest: { label: 'access request', path: '/page_access_requests' },
  invite: { label: 'invite', path: '/invites' },
  follow: { label: 'follow', path: '/follows' },
  status: {
    label: 'status',
    path: '/statuses',
    newestFirst: true,
    gone: { path: '/audit_log', query: { action: 'status.remove' }, id: (entry) => String(entry.target_id) },
  },
  report: { label: 'report', path: '/reports' },
  webhook: { label: 'webhook', path: '/webhooks', describe: (r: Record<string, unknown>) => `${r.id} (${r.url})` },
  apiKey: {
    label: 'API key',
    path: '/api_keys',
    describe: (r: Record<string, unknown>) => `${r.id} (${r.api_key ?? 'revoked'})`,
    // A revoked key leaves the list; the audit log still names it.
    gone: { path: '/audit_log', query: { action: 'api_key.revoke' }, id: (entry: Record<string, unknown>) => String(entry.target_id) },
  },
} satisfies Record<string, IdList>;

/** Where the whole ids of the records listed only under another are shown. */
const LISTED_UNDER = {
  comment: 'statuses comments <status>',
  like: 'likes list --status <status>',
  'webhook delivery': 'webhooks deliveries <webhook>',
};

/**
 * Comments, likes and webhook deliveries are listed under what they belong to, not on their own, so no prefix of
 * theirs can be looked up: their ids are taken whole (and tables never shorten them). Anything else is a usage error
 * saying where the whole id is found.
 */
export function wholeIds(label: keyof typeof LISTED_UNDER, given: string[]): string[] {
  const refs = idRefs(given);
  for (const ref of refs)
    if (!ID.test(ref))
      throw new UsageError(
        `${ref} is not a ${label}'s whole id (32 characters): ${label.replace(/y$/, 'ie')}s are not listed on their own, so only whole ids ` +
          `are taken (\`${selfCommand()} ${LISTED_UNDER[label]}\` shows them)`,
      );
  return refs;
}

/**
 * Ids as typed or pasted: trimmed, in lower case (`01A21F…` is the id `01a21f…`), each once (an id given twice is
 * acted on once, not refused the second time as already done).
 */
const idRefs = (refs: string[]): string[] => [...new Set(refs.map((r) => (/^\s*[0-9a-f]+\s*$/i.test(r) ? r.trim().toLowerCase() : r.trim())))];

/** A record that a name was looked for but none matched: a failure of the lookup, exit 1 like a 404. */
/**
 * The id of the one record of `items` whose id starts with `prefix`: none is a failure like a 404 (exit 1), several a
 * usage error listing them (exit 2). `among` says which records were looked at; `describe` shows one of several.
 */
export function oneByPrefix(items: Record<string, unknown>[], prefix: string, list: Pick<IdList, 'label' | 'among' | 'describe'>): string {
  const found = items.filter((record) => String(record.id).startsWith(prefix));
  if (found.length === 1) return String(found[0]!.id);
  if (found.length === 0) throw new NameNotFoundError(`No ${list.label}${list.among ? ` ${list.among}` : ''} has an id starting with ${prefix}`);
  const shown = found.slice(0, 10).map((r) => list.describe?.(r) ?? String(r.id));
  throw new UsageError(
    `${found.length} ${list.label.endsWith('s') ? `${list.label}es` : `${list.label}s`} have an id starting with ${prefix}: ${shown.join(', ')}${found.length > 10 ? ', …' : ''}; give more of the id`,
  );
}

export class NameNotFoundError extends Error {
  override name = 'NameNotFoundError';
}

/**
 * Names both ways: what a person types (a nickname, a slug, a configuration's or role's name) to an id, with one
 * request by the list endpoint's exact filter; and ids to names for tables, each id asked once per run.
 */
export class Names {
  private readonly known = new Map<string, Promise<string | undefined>>();
  private readonly resolved = new Map<string, string | undefined>();
  private readonly lookups = new Map<string, Promise<string>>();

  constructor(private readonly client: ApiClient) {}

  /** The id that `ref` stands for: an id as it is, else the one record whose name, nickname or slug is exactly `ref`. */
  async resolve(kind: NameKind, ref: string): Promise<string> {
    const value = ref.trim();
    if (ID.test(value) || value === 'me') return value;
    const k = KINDS[kind];
    const found = await this.client.get<{ items: Record<string, unknown>[]; total_items: number }>(k.path, {
      [k.filter]: value,
      per_page: 10,
    });
    if (found.items.length === 1) {
      const record = found.items[0]!;
      this.resolved.set(`${kind}:${record.id}`, k.nameOf(record));
      return String(record.id);
    }
    if (found.items.length === 0) {
      if (ID_PREFIX.test(value)) return (await this.fullIds({ ...k, describe: (r) => `${r.id} (${k.nameOf(r)})` }, [value]))[0]!;
      throw new NameNotFoundError(`No ${k.label} with the id or ${k.filter} "${value}"`);
    }
    const listed = found.items.map((r) => `${r.id} (${k.nameOf(r)})`).join(', ');
    throw new UsageError(
      `${found.total_items} ${k.label}s have the ${k.filter} "${value}": ${listed}${found.total_items > found.items.length ? ', …' : ''}; give the id`,
    );
  }

  /**
   * Every id the CLI prints is accepted back (docs/architecture.md, "The client and the CLI"): each ref as a full id, a full id as it is and a
   * prefix of 6 characters or more resolved among the records the caller may see. The API has no prefix
   * filter, so the list is read whole, once for all the prefixes of one call. A prefix naming several records
   * is a usage error listing them (exit 2); one naming none, a failure like a 404 (exit 1).
   */
  async fullIds(list: IdList, given: string[]): Promise<string[]> {
    const refs = idRefs(given);
    // Every ref is checked before any is used: a command given several acts on none when one cannot be an id.
    for (const ref of refs) {
      if (ID.test(ref) || ID_PREFIX.test(ref)) continue;
      // Hex shorter than a table shows is too short to name one.
      const a = /^[aeiouAEIOU]/.test(list.label) ? 'an' : 'a';
      const what = /^[0-9a-f]{1,5}$/.test(ref) ? `is too short to name ${a} ${list.label}` : `is not ${a} ${list.label}'s id`;
      throw new UsageError(`${ref} ${what}: give its whole id or at least its first 6 characters`);
    }
    if (refs.every((ref) => ID.test(ref))) return refs;
    const path = typeof list.path === 'string' ? list.path : await list.path(this.client);
    // Ids begin with their time: walking a newest-first list, once its last id is below every prefix, no record
    // further on can start with one (a status made a minute ago is found in the first page, not the last).
    const prefixes = refs.filter((ref) => ID_PREFIX.test(ref));
    const pastAll = (wanted: string[]) => (read: Record<string, unknown>[]) =>
      read.length > 0 && wanted.every((prefix) => String(read[read.length - 1]!.id) < prefix);
    const enough = list.newestFirst ? pastAll(prefixes) : undefined;
    const { items } = await fetchList<Record<string, unknown>>(this.client, path, {}, { perPage: 100, all: true }, list.bare, enough);
    const unmatched = prefixes.filter((prefix) => !items.some((record) => String(record.id).startsWith(prefix)));
    if (list.gone && unmatched.length > 0) {
      const { path: gonePath, query, id } = list.gone;
      // The log is newest first, and a record is removed after it is made: once an entry is older than every
      // prefix still unmatched, no entry further on names a record with one. (Ids and times come from the servers'
      // clocks: processes sharing a database whose clocks differ by more than a status's life could end it early.)
      const walk = { perPage: 100, all: true };
      // Refused (403) to all but Admins: they have nothing gone to find.
      const gone = await fetchList<Record<string, unknown>>(this.client, gonePath, query, walk, false, pastAll(unmatched)).catch((error: unknown) => {
        if ((error as { status?: unknown }).status === 403) return { items: [] };
        throw error;
      });
      const known = new Set(items.map((record) => String(record.id)));
      for (const goneId of new Set(gone.items.map(id)))
        if (!known.has(goneId) && unmatched.some((prefix) => goneId.startsWith(prefix))) items.push({ id: goneId });
    }
    // A prefix and the whole id of one record are one record.
    const full = refs.map((prefix) => (ID_PREFIX.test(prefix) ? oneByPrefix(items, prefix, { ...list, among: list.among ?? 'you may see' }) : prefix));
    return [...new Set(full)];
  }

  /**
   * `resolve`, each distinct name asked once per run: an import naming one page configuration on 10,000 rows
   * looks it up once. A failed lookup is remembered too.
   */
  resolveOnce(kind: NameKind, ref: string): Promise<string> {
    const key = `${kind}=${ref.trim()}`;
    let pending = this.lookups.get(key);
    if (!pending) {
      pending = this.resolve(kind, ref);
      this.lookups.set(key, pending);
    }
    return pending;
  }

  /** Several at once, in order. */
  resolveAll(kind: NameKind, refs: string[]): Promise<string[]> {
    return Promise.all(refs.map((ref) => this.resolve(kind, ref)));
  }

  /**
   * Fetches the names of these ids, each one once, by the list endpoint's `ids` filter: one request for up to
   * 100 ids, so a table of 25 rows costs one request per named column, not one per row. An id the caller may
   * not see keeps no name (the table shows the id).
   */
  async load(kind: NameKind, ids: (string | null | undefined)[]): Promise<void> {
    const key = (id: string) => `${kind}:${id}`;
    const wanted = [...new Set(ids.filter((id): id is string => !!id && ID.test(id)))].filter(
      (id) => !this.resolved.has(key(id)) && !this.known.has(key(id)),
    );
    for (let i = 0; i < wanted.length; i += MAX_IDS) {
      const batch = wanted.slice(i, i + MAX_IDS);
      const names = this.client
        .get<{ items: Record<string, unknown>[] }>(KINDS[kind].path, { ids: batch.join(','), per_page: MAX_IDS })
        .then(({ items }) => new Map(items.map((record) => [String(record.id), KINDS[kind].nameOf(record)])))
        .catch(() => new Map<string, string>());
      for (const id of batch) this.known.set(key(id), names.then((found) => found.get(id)));
    }
    const pending = [...new Set(ids)].filter((id): id is string => !!id && this.known.has(key(id)));
    await Promise.all(pending.map((id) => this.known.get(key(id))!.then((name) => this.resolved.set(key(id), name))));
  }

  get(kind: NameKind, id: string): string | undefined {
    return this.resolved.get(`${kind}:${id}`);
  }
}
