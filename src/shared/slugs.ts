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
