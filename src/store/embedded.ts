/**
 * The users and pages that other records embed (an invite's two users and its page, an access request's page
 * and user, a followed page or user), as JSON text kept by id and spliced into the records of a list read as
 * JSON (`records-json.ts`), instead of a correlated lookup and a `json_object` of a dozen fields for every row
 * that embeds one: the invites list's statement went from 191 to 58 µs a page of 25 (SQLite only).
 *
 * Exact, never stale: each kind is kept for one version of the tables its text is made of (`table_versions`,
 * bumped by triggers in the transaction of every write, whoever writes: this process, another worker,
 * another process), read by the same statement as the rows that refer to it, so a page is made of the data of
 * one moment (the records it lacks read in the same snapshot as those rows). A version that moved empties that kind (a page created empties the pages, not the users).
 * Bounded: at most `max` records of each kind, the oldest dropped first.
 */

/**
 * Per column of a record's parts: null, an object of its own fields; a string, the `"name":` of a reference;
 * `''`, the one column of a record that is itself a reference (a page of the pages list).
 */
export type Layout = readonly (string | null)[];

/** A reference to an embedded record: `U` + a user's id, `P` + a page's id; null for none. */
type Ref = string;

export interface EmbeddedReads {
  /** `[ref, text with the email, text without]` of the users among `ids` that exist. */
  users(ids: readonly string[]): unknown[][];
  /** `[ref, text]` of the pages among `ids` that exist. */
  pages(ids: readonly string[]): unknown[][];
}

export class EmbeddedRecords {
  private readonly users = new Map<Ref, readonly [full: string, open: string]>();
  private readonly pages = new Map<Ref, string>();
  private usersAt: string | undefined;
  private pagesAt: string | undefined;

  constructor(
    private readonly reads: EmbeddedReads,
    private readonly max = 20_000,
  ) {}

  /**
   * The records of `rows` as JSON text, as `viewer` may see them: an embedded user's email shown to
   * administrators (`viewer` null) and to the user themself. Each row holds the record's parts by `layout`, then
   * the versions of the users and of the pages as of its reading (`partsSelection` in `records-json.ts`), then
   * anything else. `mayRead`: inside the snapshot the rows were read in, the records not kept are read; outside
   * one (the rows read by one statement), the answer is undefined unless every record is kept for the versions
   * the rows were read with (the page is then that statement's moment), and nothing is read or forgotten.
   */
  texts(rows: readonly unknown[][], count: number, layout: Layout, viewer: string | null, mayRead = true): string[] | undefined {
    if (count === 0) return [];
    // A version read as null: the rows embed none of that kind (`Parts.noUsers`, `noPages`), which stays as it is.
    const usersRead = rows[0]![layout.length];
    const pagesRead = rows[0]![layout.length + 1];
    const usersAt = usersRead === null ? this.usersAt : String(usersRead);
    const pagesAt = pagesRead === null ? this.pagesAt : String(pagesRead);
    if (usersAt !== this.usersAt || pagesAt !== this.pagesAt) {
      if (!mayRead) return undefined;
      if (usersAt !== this.usersAt) {
        this.users.clear();
        this.usersAt = usersAt;
      }
      if (pagesAt !== this.pagesAt) {
        this.pages.clear();
        this.pagesAt = pagesAt;
      }
    }
    const self = viewer === null ? undefined : `U${viewer}`;
    // Each reference looked up once: the usual page has every record kept.
    const texts = this.spliced(rows, count, layout, self, viewer === null, true);
    if (texts || !mayRead) return texts;
    this.fill(rows, count, layout);
    const filled = this.spliced(rows, count, layout, self, viewer === null, false)!;
    // Only now the oldest go, past the bound: a page may refer to more records than are kept.
    trim(this.users, this.max);
    trim(this.pages, this.max);
    return filled;
  }

  /**
   * The rows' records with the embedded ones spliced in; `strict`: undefined as soon as one is not kept, else
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
        let embedded = ref === null ? 'null' : this.kept(ref, self, admin);
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

  /** An embedded record's text as the viewer may see it, if kept. */
  private kept(ref: Ref, self: string | undefined, admin: boolean): string | undefined {
    if (ref.charCodeAt(0) === 85 /* U */) {
      const user = this.users.get(ref);
      if (!user) return undefined;
      return admin || ref === self ? user[0] : user[1];
    }
    return this.pages.get(ref);
  }

  /** The ids of the users and of the pages the rows refer to that are not kept. */
  private missing(rows: readonly unknown[][], count: number, layout: Layout): { users?: Set<string>; pages?: Set<string> } | undefined {
    let users: Set<string> | undefined;
    let pages: Set<string> | undefined;
    for (let r = 0; r < count; r++)
      for (let k = 0; k < layout.length; k++) {
        if (layout[k] === null) continue;
        const ref = rows[r]![k] as Ref | null;
        if (ref === null) continue;
        if (ref.charCodeAt(0) === 85) {
          if (!this.users.has(ref)) (users ??= new Set()).add(ref.slice(1));
        } else if (!this.pages.has(ref)) (pages ??= new Set()).add(ref.slice(1));
      }
    return users || pages ? { users, pages } : undefined;
  }

  /** Reads the records the rows refer to that are not kept yet, all of each kind in one statement. */
  private fill(rows: readonly unknown[][], count: number, layout: Layout): void {
    const { users, pages } = this.missing(rows, count, layout) ?? {};
    if (users) for (const [ref, full, open] of this.reads.users([...users]) as [Ref, string, string][]) this.users.set(ref, [full, open]);
    if (pages) for (const [ref, text] of this.reads.pages([...pages]) as [Ref, string][]) this.pages.set(ref, text);
  }
}

/** Drops the records kept longest while there are more than `max`. */
function trim(records: Map<Ref, unknown>, max: number): void {
  for (const ref of records.keys()) {
    if (records.size <= max) return;
    records.delete(ref);
  }
}
