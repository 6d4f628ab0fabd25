/** The OpenAPI document with every local `$ref` replaced by what it names (the document has no cycles). */
export function inlineRefs<T>(doc: T): T {
  const root = doc as unknown as Record<string, unknown>;
  const at = (ref: string) => ref.slice(2).split('/').reduce<any>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('inlineRefs: a cycle, or a document nested past 64 levels');
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    if (!value || typeof value !== 'object') return value;
    const { $ref, ...rest } = value as Record<string, unknown>;
    const base = typeof $ref === 'string' && $ref.startsWith('#/') ? (walk(at($ref), depth + 1) as Record<string, unknown>) : {};
    const own = Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, walk(item, depth + 1)]));
    return { ...base, ...own };
  };
  return walk(doc, 0) as T;
}
