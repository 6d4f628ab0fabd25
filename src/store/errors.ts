/**
 * Uniqueness lives in the schema: a duplicate is the driver's error, read alike from SQLite's
 * `UNIQUE constraint failed: users.email` and PostgreSQL's 23505 (`table`, `detail: Key (email)=(…) already exists.`).
 */
export interface UniqueViolation {
  table: string;
  columns: string[];
  /** The unique index, when the driver names it (PostgreSQL always; SQLite for an index on an expression). */
  index?: string;
}

export function readUniqueViolation(error: unknown): UniqueViolation | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as { code?: string; message?: string; table?: string; detail?: string; constraint?: string };
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // An index on an expression is named, not its columns: `UNIQUE constraint failed: index 'name'`.
    const index = /constraint failed: index '([^']+)'/.exec(e.message ?? '');
    if (index) return { table: '', columns: [], index: index[1] };
    const match = /constraint failed: (.+)$/.exec(e.message ?? '');
    const pairs = (match?.[1] ?? '').split(',').map((s) => s.trim().split('.'));
    return { table: pairs[0]?.[0] ?? '', columns: pairs.map((p) => p[1] ?? '') };
  }
  if (e.code === '23505') {
    const match = /^Key \(([^)]+)\)/.exec(e.detail ?? '');
    return { table: e.table ?? '', columns: (match?.[1] ?? '').split(',').map((s) => s.trim()), index: e.constraint };
  }
  return null;
}

export function isUniqueViolation(error: unknown, table: string, column?: string): boolean {
  const v = readUniqueViolation(error);
  return !!v && v.table === table && (column === undefined || v.columns.includes(column));
}
