/**
 * The texts a list's page is spliced from, kept by id: the users and pages that other records embed (an
 * invite's two users and its page, an access request's page and user, a followed page or user; the pages and
 * users lists' own records too), and the records of the lists that keep theirs (follows, access requests,
 * invites, events: `KEPT_RECORDS` in `records-json.ts`), each as its parts with the references it embeds (an
 * event embeds none). A page then
 * reads its walk's keys alone (an index), instead of a correlated lookup and a `json_object` of a dozen fields
 * for every row and every record it embeds: the invites list's statement went from 191 to 58 µs a page of 25,
 * then to about 13 with the invites kept too (SQLite only).
 *
 * Exact, never stale: each kind is kept for one version of the tables its text is made of (`table_versions`,
 * bumped by triggers in the transaction of every write, whoever writes: this process, another worker,
 * another process), read by the same statement as the rows that refer to it, so a page is made of the data of
 * one moment (the records it lacks read in the same snapshot as those rows). A version that moved empties that
 * kind (a page created empties the pages, not the users); a list's own records are kept for the version of
 * their updates and deletes (a follow created adds a record, and changes none of those kept).
 * Bounded: at most `max` records of each kind and a quarter more (past it, the oldest dropped, down to `max`).
 */

import type { KeptKind } from './records-json.js';

/**
 * Per column of a record's parts: null, an object of its own fields; a string, the `"name":` of a reference;
 * `''`, the one column of a record that is itself a reference (a page of the pages list, a follow).
 */
export type Layout = readonly (string | null)[];

/** A reference to a kept text: `U` + a user's id, `P` + a page's id, a list's own kind + id; null for none. */
type Ref = string;

/**
 * A list's own record as kept: its text cut around the references it embeds, literal text at even places and a
 * reference at odd ones (`''` for none, written `null`): `{"id":…,"followable":`, `P…`, `,"created_at":…}`.
 * With it, its whole text as last spliced, as an administrator sees it (`full`, every email) and as anyone else
 * does (`open`, where it embeds no user seen by themself), while the users and pages it embeds stay as they were
 * (`at`, the generation of the users and pages kept): one lookup for the usual record, its text one flat string.
 */
interface Template {
  readonly parts: readonly string[];
  at: number;
  full?: string;
  open?: string;
}

/**
 * Reads by id. `versions`: SQL of versions (`JsonSelection.versions`) the same statement reads too, answered
 * as `versions` (outside a snapshot: what the texts read are checked against).
 */
export interface EmbeddedReads {
  /** `[ref, text with the email, text without]` of the users among `ids` that exist. */
  users(ids: readonly string[], versions?: string): Read;
  /** `[ref, text]` of the pages among `ids` that exist. */
  pages(ids: readonly string[], versions?: string): Read;
  /** `[ref, ...parts]` of the records of `kind` among `ids` that exist, and the parts' layout. */
  records(kind: KeptKind, ids: readonly string[], versions?: string): Read & { layout: Layout };
}
interface Read {
  rows: unknown[][];
  versions?: string | null;
}

/** One kind's texts and the version they were read at. */
class Kept<T> {
  readonly texts = new Map<Ref, T>();
  at: string | undefined;

  /** Whether `version` (the page's; `''` where it read none of this kind) keeps what is kept. */
  holds(version: string): boolean {
    return version === '' || version === this.at;
  }

  /** Empties the kind where its version moved: true then. */
  move(version: string): boolean {
    if (this.holds(version)) return false;
    this.texts.clear();
    this.at = version;
    return true;
  }

  /**
   * Past a quarter more than `max` texts, drops those kept longest down to `max`: a quarter at a time, not a
   * page's worth after every page (a Map's iteration from its start steps over every entry deleted since it was
   * last compacted: trimming 25 at a time cost 5 µs a page at a million pages, most of it stepping over holes).
   * Never fewer than `max` kept (down to three quarters, a million-page follows list that reads about as many as
   * are kept read 2.6 times as many again).
   */
  trim(max: number): void {
    if (this.texts.size <= max + (max >> 2)) return;
    for (const ref of this.texts.keys()) {
      if (this.texts.size <= max) return;
      this.texts.delete(ref);
    }
  }
}

/**
 * Texts kept of each kind at most (users, pages, each list's own records), and a quarter more before the oldest go.
 * 60,000: the benchmark's million-page reads (four callers, four filters, pages 1–400) come back to about 40,000
 * pages, so at 20,000 one record in seven was read again by id, over and over. Measured (ninth session, fresh
 * copies of one store of a million pages, the two bounds alternated over HTTP, three rounds): the varied reads
 * 191, 145, 170 → 156, 140, 145 µs a request, the 90/10 mix 228, 182, 192 → 189, 179, 161, the pages list 184, 154,
 * 135 → 134, 121, 130. Memory: 2 MB more of heap once that hot set is all kept (33 → 35 MB after 30,000 varied
 * reads in process); at most about 25 MB a kind (a page's text is about 300 bytes).
 */
export const KEPT_TEXTS = 60_000;

export class EmbeddedRecords {
  private readonly users = new Kept<readonly [full: string, open: string]>();
  private readonly pages = new Kept<string>();
  private readonly records = new Map<KeptKind, Kept<Template>>();
  private unversioned = 0;
  /** Moves whenever the users or the pages kept are emptied: a record's whole text spliced before is stale. */
  private generation = 0;

  constructor(
    private readonly reads: EmbeddedReads,
    private readonly max = KEPT_TEXTS,
  ) {}

  /**
   * The records of `rows` as JSON text, as `viewer` may see them: an embedded user's email shown to
   * administrators (`viewer` null) and to the user themself. Each row holds the record's parts by `layout`
   * (then anything else); `versions` is what the page read of the users', the pages' and its own records'
   * versions (`partsSelection` in `records-json.ts`: `users/pages/records`, each `''` where not read).
   * `outside`: undefined inside the snapshot the rows were read in, where the texts not kept are read as of
   * it; outside one (the rows read by one statement), the SQL of the versions the rows were read with, which
   * every read of texts not kept reads too: the answer is undefined (to be read again in a snapshot) unless each
   * read them unchanged, its texts then those of the rows' moment (no write between).
   */
  texts(
    rows: readonly unknown[][],
    count: number,
    layout: Layout,
    viewer: string | null,
    versions: string | null,
    kind: KeptKind | undefined,
    outside?: string,
  ): string[] | undefined {
    if (count === 0) return [];
    if (typeof versions !== 'string') {
      // No version read (a table_versions row missing): nothing is kept for it; what the page needs is read.
      if (outside !== undefined) return undefined;
      versions = `?${++this.unversioned}/?${this.unversioned}/?${this.unversioned}`;
    }
    const [users = '', pages = '', own = ''] = versions.split('/');
    const records = kind === undefined ? undefined : this.recordsOf(kind);
    // The page's versions are the newest seen: what is kept of a kind whose version moved is stale.
    if (!this.users.holds(users) || !this.pages.holds(pages) || (records && !records.holds(own))) {
      // (Both run: `||` would skip the second.)
      if (Number(this.users.move(users)) | Number(this.pages.move(pages))) this.generation++;
      records?.move(own);
    }
    const self = viewer === null ? undefined : `U${viewer}`;
    // Each reference looked up once: the usual page has every text kept.
    const texts = this.spliced(rows, count, layout, self, viewer === null, true);
    if (texts) return texts;
    if (!this.fill(rows, count, layout, kind, outside === undefined ? undefined : { sql: outside, read: versions })) return undefined;
    const filled = this.spliced(rows, count, layout, self, viewer === null, false)!;
    // Only now the oldest go, past the bound: a page may refer to more texts than are kept.
    this.users.trim(this.max);
    this.pages.trim(this.max);
    records?.trim(this.max);
    return filled;
  }

  private recordsOf(kind: KeptKind): Kept<Template> {
    let records = this.records.get(kind);
    if (!records) this.records.set(kind, (records = new Kept()));
    return records;
  }

  /**
   * The rows' records with the kept texts spliced in; `strict`: undefined as soon as one is not kept, else
   * null in its place (a record that is not there: a follow's followable deleted).
   */
  private spliced(rows: readonly unknown[][], count: number, layout: Layout, self: string | undefined, admin: boolean, strict: boolean): string[] | undefined {
    const texts = new Array<string>(count);
    const whole = layout.length === 1 && layout[0] === '';
    for (let r = 0; r < count; r++) {
      const row = rows[r]!;
      let text = '';
      for (let k = 0; k < layout.length; k++) {
        const name = layout[k];
        if (name === null || name === undefined) {
          const fields = row[k] as string;
          if (fields.length > 2) text = text ? `${text},${fields.slice(1, -1)}` : fields.slice(1, -1);
          continue;
        }
        const ref = row[k] as Ref | null;
        let embedded = ref === null ? 'null' : this.kept(ref, self, admin, strict);
        if (embedded === undefined) {
          if (strict) return undefined;
          embedded = 'null';
        }
        if (whole) text = embedded;
        else text = text ? `${text},${name}${embedded}` : name + embedded;
      }
      texts[r] = whole ? text : `{${text}}`;
    }
    return texts;
  }

  /**
   * A kept text as the viewer may see it; undefined where it is not kept, or (`strict`) where one it embeds is
   * not (else that one is null).
   */
  private kept(ref: Ref, self: string | undefined, admin: boolean, strict: boolean): string | undefined {
    const letter = ref.charCodeAt(0);
    if (letter === 85 /* U */) {
      const user = this.users.texts.get(ref);
      if (!user) return undefined;
      return admin || ref === self ? user[0] : user[1];
    }
    if (letter === 80 /* P */) return this.pages.texts.get(ref);
    const template = this.records.get(ref[0] as KeptKind)?.texts.get(ref);
    if (!template) return undefined;
    const { parts } = template;
    // Whether the viewer sees their own email in it (a text of their own, not kept).
    let own = false;
    if (!admin) for (let i = 1; i < parts.length; i += 2) if (parts[i] === self) own = true;
    if (template.at === this.generation) {
      const text = admin ? template.full : own ? undefined : template.open;
      if (text !== undefined) return text;
    } else {
      template.at = this.generation;
      template.full = template.open = undefined;
    }
    const pieces = new Array<string>(parts.length);
    pieces[0] = parts[0]!;
    let whole = true;
    for (let i = 1; i < parts.length; i += 2) {
      const inner = parts[i]!;
      let embedded = inner === '' ? 'null' : this.kept(inner, self, admin, strict);
      if (embedded === undefined) {
        if (strict) return undefined;
        embedded = 'null';
        whole = false;
      }
      pieces[i] = embedded;
      pieces[i + 1] = parts[i + 1]!;
    }
    // One flat string (a page's body joins them as they are), kept unless a record it embeds was missing.
    const text = pieces.join('');
    if (whole) {
      if (admin) template.full = text;
      else if (!own) template.open = text;
    }
    return text;
  }

  /**
   * Reads the texts the rows refer to that are not kept yet: the list's own records first, then what they embed.
   * `check`: each read reads these versions too, and keeps what it read only if they are still those the rows were
   * read with (false as soon as one is not).
   */
  private fill(rows: readonly unknown[][], count: number, layout: Layout, kind: KeptKind | undefined, check?: { sql: string; read: string }): boolean {
    const holds = (read: Read) => check === undefined || read.versions === check.read;
    const refs: Ref[] = [];
    for (let r = 0; r < count; r++)
      for (let k = 0; k < layout.length; k++) {
        if (layout[k] === null) continue;
        const ref = rows[r]![k] as Ref | null;
        if (ref !== null) refs.push(ref);
      }
    if (kind !== undefined) {
      const records = this.recordsOf(kind);
      const missing = refs.filter((ref) => ref[0] === kind && !records.texts.has(ref)).map((ref) => ref.slice(1));
      if (missing.length) {
        const read = this.reads.records(kind, [...new Set(missing)], check?.sql);
        if (!holds(read)) return false;
        for (const row of read.rows) records.texts.set(row[0] as Ref, { parts: templateOf(read.layout, row), at: -1 });
      }
      // The users and pages the records embed, found in their templates.
      const own = refs.length;
      for (let i = 0; i < own; i++) {
        const parts = refs[i]![0] === kind ? records.texts.get(refs[i]!)?.parts : undefined;
        if (parts) for (let j = 1; j < parts.length; j += 2) if (parts[j]) refs.push(parts[j]!);
      }
    }
    let users: Set<string> | undefined;
    let pages: Set<string> | undefined;
    for (const ref of refs) {
      const letter = ref.charCodeAt(0);
      if (letter === 85) {
        if (!this.users.texts.has(ref)) (users ??= new Set()).add(ref.slice(1));
      } else if (letter === 80 && !this.pages.texts.has(ref)) (pages ??= new Set()).add(ref.slice(1));
    }
    if (users) {
      const read = this.reads.users([...users], check?.sql);
      if (!holds(read)) return false;
      for (const [ref, full, open] of read.rows as [Ref, string, string][]) this.users.texts.set(ref, [full, open]);
    }
    if (pages) {
      const read = this.reads.pages([...pages], check?.sql);
      if (!holds(read)) return false;
      for (const [ref, text] of read.rows as [Ref, string][]) this.pages.texts.set(ref, text);
    }
    return true;
  }
}

/**
 * A record's template from its reference and parts (`row`, by `layout`): its own fields' objects joined, each
 * embedded record's reference kept apart.
 */
function templateOf(layout: Layout, row: readonly unknown[]): string[] {
  const template: string[] = [];
  let text = '{';
  let first = true;
  for (let k = 0; k < layout.length; k++) {
    const name = layout[k];
    const value = row[k + 1];
    if (name === null || name === undefined) {
      const fields = value as string;
      if (fields.length <= 2) continue;
      text += (first ? '' : ',') + fields.slice(1, -1);
    } else {
      template.push(text + (first ? '' : ',') + name);
      template.push((value as Ref | null) ?? '');
      text = '';
    }
    first = false;
  }
  template.push(`${text}}`);
  return template;
}
