/**
 * Uniqueness lives in the schema, so a duplicate shows up as the driver's constraint error. This reads
 * it the same way for SQLite (`UNIQUE constraint failed: users.email`) and PostgreSQL (code 23505, with
 * `table` and `detail: Key (email)=(…) already exists.`).
 */
export interface UniqueViolation {
  table: string;
  columns: string[];
}

export function readUniqueViolation(error: unknown): UniqueViolation | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as { code?: string; message?: string; table?: string; detail?: string };
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const match = /constraint failed: (.+)$/.exec(e.message ?? '');
    const pairs = (match?.[1] ?? '').split(',').map((s) => s.trim().split('.'));
    return { table: pairs[0]?.[0] ?? '', columns: pairs.map((p) => p[1] ?? '') };
  }
  if (e.code === '23505') {
    const match = /^Key \(([^)]+)\)/.exec(e.detail ?? '');
    return { table: e.table ?? '', columns: (match?.[1] ?? '').split(',').map((s) => s.trim()) };
  }
  return null;
}

export function isUniqueViolation(error: unknown, table: string, column?: string): boolean {
  const v = readUniqueViolation(error);
  return !!v && v.table === table && (column === undefined || v.columns.includes(column));
}
