/** "Café des Arts!" → "cafe-des-arts"; falls back when nothing URL-friendly is left. */
export function slugify(text: string, fallback: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** The base slug if free, else the base with the next free numeric suffix. */
export function nextFreeSlug(base: string, taken: string[]): string {
  const set = new Set(taken);
  if (!set.has(base)) return base;
  let max = 1;
  for (const slug of taken) {
    const n = Number(slug.slice(base.length + 1));
    if (slug.startsWith(`${base}-`) && Number.isInteger(n) && n > max) max = n;
  }
  return `${base}-${max + 1}`;
}
