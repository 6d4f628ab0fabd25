import { AppError, ErrorCode } from '../shared/errors.js';
import type { TimeCursor } from '../store/moderation.js';

/** Opaque to clients: where a (created_at, id) walk stopped, as base64url JSON. */
export const encodeCursor = (at: TimeCursor): string =>
  Buffer.from(JSON.stringify([at.created_at, at.id])).toString('base64url');

export function decodeCursor(value: string): TimeCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((v) => typeof v === 'string' && v.length <= 64))
      return { created_at: parsed[0] as string, id: parsed[1] as string };
  } catch {
    // not ours: refused below
  }
  throw new AppError(400, ErrorCode.invalidQuery, 'cursor is not one this server gave: follow the Link header as it is');
}

export interface CursorPage<T> {
  items: T[];
  total_items: number;
  /** The cursor of the next page, when more records follow. */
  next?: string;
}

/**
 * Reads one more row than asked, to know whether more follow without counting what is left; the page
 * ends where the next one starts.
 */
export async function readPage<R extends TimeCursor>(
  query: { page: number; per_page: number; cursor?: string },
  read: (slice: { per_page: number; offset: number; after?: TimeCursor }) => Promise<{ rows: R[]; total: number }>,
): Promise<{ rows: R[]; total: number; next?: string }> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const offset = after ? 0 : (query.page - 1) * query.per_page;
  const { rows, total } = await read({ per_page: query.per_page + 1, offset, after });
  const more = rows.length > query.per_page;
  const kept = more ? rows.slice(0, query.per_page) : rows;
  return { rows: kept, total, next: more ? encodeCursor(kept[kept.length - 1]!) : undefined };
}
