import { AppError, ErrorCode } from '../shared/errors.js';

export interface LiveStreamLimits {
  /** How often a stream looks for new notifications (when anything was written since it last looked). */
  pollMs?: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs?: number;
  /** Streams open at once for one user (default 8) and in this process (default 1,000; AGORA_MAX_STREAMS). */
  perUser?: number;
  max?: number;
}

export const DEFAULT_STREAM_LIMITS = { perUser: 8, max: 1000 };
/** Seconds a refused client is asked to wait: a stream ends when its listener leaves, which cannot be foreseen. */
const RETRY_AFTER = '10';

/**
 * Open live streams (Server-Sent Events), counted per user and in all, since each holds a connection and a
 * polling loop for as long as its client stays (one key held 19,500 and every write slowed down 400 times).
 * They never end by themselves, so the server ends them when it closes: otherwise a graceful shutdown would
 * wait for every listener to hang up.
 */
export class LiveStreams {
  private readonly open = new Set<() => void>();
  private readonly byUser = new Map<string, number>();
  readonly pollMs: number;
  readonly heartbeatMs: number;
  private readonly perUser: number;
  private readonly max: number;

  constructor(limits: LiveStreamLimits = {}) {
    this.pollMs = limits.pollMs ?? 250;
    this.heartbeatMs = limits.heartbeatMs ?? 15_000;
    this.perUser = limits.perUser ?? DEFAULT_STREAM_LIMITS.perUser;
    this.max = limits.max ?? DEFAULT_STREAM_LIMITS.max;
  }

  /** Counts a stream of `userId` opening, or throws 429/503 when it is one too many; answers its release. */
  add(userId: string, close: () => void): () => void {
    const mine = this.byUser.get(userId) ?? 0;
    if (mine >= this.perUser)
      throw new AppError(
        429,
        ErrorCode.tooManyStreams,
        `This user has ${mine} live streams open already, the most allowed at once: close one first`,
        undefined,
        { 'retry-after': RETRY_AFTER },
      );
    if (this.open.size >= this.max)
      throw new AppError(503, ErrorCode.serverBusy, 'The server holds as many live streams as it can: retry later', undefined, {
        'retry-after': RETRY_AFTER,
      });
    this.byUser.set(userId, mine + 1);
    this.open.add(close);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open.delete(close);
      const left = (this.byUser.get(userId) ?? 1) - 1;
      if (left > 0) this.byUser.set(userId, left);
      else this.byUser.delete(userId);
    };
  }

  closeAll(): void {
    for (const close of [...this.open]) close();
  }
}
