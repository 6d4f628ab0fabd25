import type { ApiClient } from '../client/api-client.js';
import { UsageError } from './errors.js';

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

const ID = /^[0-9a-f]{32}$/;

/** A record that a name was looked for but none matched: a failure of the lookup, exit 1 like a 404. */
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
    if (found.items.length === 0)
      throw new NameNotFoundError(`No ${k.label} with the id or ${k.filter} "${value}"`);
    const listed = found.items.map((r) => `${r.id} (${k.nameOf(r)})`).join(', ');
    throw new UsageError(
      `${found.total_items} ${k.label}s have the ${k.filter} "${value}": ${listed}${found.total_items > found.items.length ? ', …' : ''}; give the id`,
    );
  }

  /** Several at once, in order. */
  resolveAll(kind: NameKind, refs: string[]): Promise<string[]> {
    return Promise.all(refs.map((ref) => this.resolve(kind, ref)));
  }

  /** Fetches the names of these ids (each one once); an id the caller may not see keeps no name. */
  async load(kind: NameKind, ids: (string | null | undefined)[]): Promise<void> {
    const { seg } = await import('../client/api-client.js');
    const wanted = [...new Set(ids.filter((id): id is string => !!id && ID.test(id)))];
    await Promise.all(
      wanted.map((id) => {
        const key = `${kind}:${id}`;
        if (this.resolved.has(key)) return undefined;
        let pending = this.known.get(key);
        if (!pending) {
          pending = this.client
            .get<Record<string, unknown>>(`${KINDS[kind].path}/${seg(id)}`)
            .then((record) => KINDS[kind].nameOf(record))
            .catch(() => undefined);
          this.known.set(key, pending);
        }
        return pending.then((name) => this.resolved.set(key, name));
      }),
    );
  }

  get(kind: NameKind, id: string): string | undefined {
    return this.resolved.get(`${kind}:${id}`);
  }
}
