import { visible } from './safe-text.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * `serve --log` on a terminal: each JSON log line as one line a person reads
 * (`10:42:07 INFO  req-1 GET /public-api/v1/users → 200 3.1 ms`). Piped, the JSON lines are left as they are.
 */
export function readableLog(stream: NodeJS.WriteStream): { write(line: string): void } {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        stream.write(visible(line.trimEnd()) + '\n');
        return;
      }
      const time = new Date(Number(entry.time) || Date.now()).toTimeString().slice(0, 8);
      const level = (LEVELS[Number(entry.level)] ?? String(entry.level)).padEnd(5);
      const req = entry.req as { method?: string; url?: string } | undefined;
      const res = entry.res as { statusCode?: number } | undefined;
      const parts = [time, level, entry.reqId ? String(entry.reqId) : ''];
      if (req) parts.push(`${req.method} ${req.url}`);
      else if (res) parts.push(`→ ${res.statusCode}${typeof entry.responseTime === 'number' ? ` ${entry.responseTime.toFixed(1)} ms` : ''}`);
      else parts.push(String(entry.msg ?? ''));
      const err = entry.err as { message?: string } | undefined;
      if (err?.message) parts.push(`(${err.message})`);
      stream.write(visible(parts.filter(Boolean).join(' ')) + '\n');
    },
  };
}
