import { isUniqueViolation } from '../store/errors.js';

/**
 * "Café des Arts!" → "cafe-des-arts", "Книжный клуб" → "книжный-клуб", "読書会" → "読書会": Latin letters lose their
 * accents, every script keeps its letters and digits (as Discourse's Unicode slugs do), the rest becomes `-`.
 * Falls back when nothing is left (a name of emoji only).
 */
export function slugify(text: string, fallback: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/(\p{Script=Latin})[\u0300-\u036f]+/gu, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  // At most 60 characters, never a character cut in half.
  const slug = Array.from(words).slice(0, 60).join('').replace(/-+$/, '');
  return slug || fallback;
}

/**
 * The base slug if free, else the base with a numeric suffix above every small numeric suffix already taken.
 * Only plain digit suffixes count ("1e21" or "0x10" would parse as numbers and make "base-1e+21"), and the
 * candidate is checked against what is taken, so the answer is always free.
 */
export function nextFreeSlug(base: string, taken: string[]): string {
  const set = new Set(taken);
  if (!set.has(base)) return base;
  let next = 2;
  for (const slug of taken) {
    const suffix = slug.slice(base.length + 1);
    if (slug.startsWith(`${base}-`) && /^\d{1,15}$/.test(suffix)) next = Math.max(next, Number(suffix) + 1);
  }
  while (set.has(`${base}-${next}`)) next += 1;
  return `${base}-${next}`;
}

/**
 * A free slug for a new record: `base` (numbered when taken), or for a record hidden from most users (a secret
 * page, an event in one; `hiddenId` its id) the base with a part of its own random id, never the base or a
 * numbered base. A numbered slug would tell anyone who gives another record the same name that a hidden one holds
 * it ("p-secret-2": a secret page named "P secret" exists); so a visible record gets the slug it would get if the
 * hidden one did not exist. The part starts with a letter: it is never a numeric suffix `nextFreeSlug` counts.
 */
export async function freeSlug(base: string, hiddenId: string | undefined, taken: (prefix: string) => Promise<string[]>): Promise<string> {
  const wanted = hiddenId === undefined ? base : `${base}-h${hiddenId.slice(-8)}`;
  return nextFreeSlug(wanted, await taken(wanted));
}

/** Each round of a race has one winner per slug, so N creations of one name at once need up to N rounds. */
const SLUG_ATTEMPTS = 30;

/**
 * Runs a creation that picks a free slug (`nextFreeSlug` inside its transaction) again when another process
 * took the same slug between the look and the insert: the unique index refuses the second insert (on
 * PostgreSQL that aborts its transaction, so the whole transaction runs again, and then sees the slug taken).
 */
export async function retryingSlugRace<T>(table: 'users' | 'pages' | 'events', create: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (error) {
      if (attempt >= SLUG_ATTEMPTS || !isUniqueViolation(error, table, 'slug')) throw error;
      // A little jitter, so that the losers of one round do not all meet again on the next free slug.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * Math.min(attempt, 5)));
    }
  }
}
