import type { ServerResponse } from 'node:http';
import type { Deps } from '../domain/context.js';
import { notificationsAfter } from '../domain/notifications.js';
import { AppError, ErrorCode } from '../shared/errors.js';

export interface LiveStreamLimits {
  /** A comment line after this long without a write keeps proxies from closing an idle stream. */
  heartbeatMs?: number;
  /** Streams open at once for one user (default 8) and in this process (default 1,000; AGORA_MAX_STREAMS). */
  perUser?: number;
  max?: number;
  /**
   * Bytes a stream may have written but not yet taken by its client (default 1 MiB): a client further behind (one
   * that never reads, or reads slower than its notifications come) is cut off, and resumes with its Last-Event-ID.
   */
  maxBuffered?: number;
}

export const DEFAULT_STREAM_LIMITS = { perUser: 8, max: 1000, maxBuffered: 1024 * 1024 };
/** Seconds a refused client is asked to wait: a stream ends when its listener leaves, which cannot be foreseen. */
const RETRY_AFTER = '10';
/** Notifications read at once for one user. */
const BATCH = 100;

/** One open stream: where it stands in its user's notifications (`seq`), and when it was last written to. */
interface Stream {
  raw: ServerResponse;
  last: number;
  lastWrite: number;
  /**
   * Since when it waits for its client to take what it holds ('drain'), unfed meanwhile: a backlog goes out at the
   * client's pace, not all at once into the server's memory (where `maxBuffered` would cut off every client resuming
   * from far behind, before its first byte was sent). Cut off when still waiting a heartbeat later.
   */
  waiting?: number;
  /**
   * Asked before each delivery and after each keep-alive: undefined while its caller may read it, else why not (the
   * error's body: suspended, key revoked, role changed), sent as a last `ended` event so a client knows not to
   * reconnect.
   */
  stillAllowed?: () => Promise<object | undefined>;
  /** Its keep-alive's check is under way: a slow check is not asked again meanwhile, so checks do not pile up. */
  checking?: boolean;
}

/** The open streams of one user, and the read of their new notifications (one at a time, again if woken meanwhile). */
interface Listening {
  streams: Set<Stream>;
  /** The user's counter as last looked at (`lookAtAll`): a counter above it has news. */
  known: number;
  reading: boolean;
  again: boolean;
}

/**
 * Open live streams (Server-Sent Events), counted per user and in all (one key once held 19,500 and every
 * write slowed down 400 times), and what they are sent.
 *
 * A held stream costs its socket and an entry here: no timer of its own, and no query while nothing changes but its
 * key's last use (written every 5 minutes, as for any request). Its caller is checked again at each keep-alive (as
 * before each delivery) from what the authenticator remembers, read again only after a key, user or role changed: a
 * suspension or a revoked key ends even an idle stream. The store
 * tells who got new notifications (`Store.watchNotifications`: this process's at their commit, other processes' by
 * LISTEN/NOTIFY or SQLite's shared look); for each such user with streams open, one read of what is new
 * after the furthest-behind of them is sent to each. When the store can only say that anyone may have news,
 * one query reads the counters of every user with a stream, and only those whose counter moved are read.
 * One timer for all writes the heartbeats. They never end by themselves, so the server ends them when it
 * closes: otherwise a graceful shutdown would wait for every listener to hang up.
 */
export class LiveStreams {
  private readonly byUser = new Map<string, Listening>();
  private count = 0;
  private readonly heartbeatMs: number;
  private readonly perUser: number;
  private readonly max: number;
  private readonly maxBuffered: number;
  private stopWatching: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private looking = false;
  private lookAgain = false;
  /** Set by `closeAll`: a stream whose request was under way then is refused, else it would hold the closing open. */
  private closed = false;

  constructor(
    private readonly deps: Deps,
    limits: LiveStreamLimits = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.heartbeatMs = limits.heartbeatMs ?? 15_000;
    this.perUser = limits.perUser ?? DEFAULT_STREAM_LIMITS.perUser;
    this.max = limits.max ?? DEFAULT_STREAM_LIMITS.max;
    this.maxBuffered = limits.maxBuffered ?? DEFAULT_STREAM_LIMITS.maxBuffered;
  }

  /**
   * Answers `raw` with a stream of `userId`'s notifications after the one numbered `after` (sent at once, then
   * as they come), or throws 429/503 when it would be one too many: before `takeOver` (the route's reply
   * hijacked), so that a refusal is still answered in the contract's shape.
   */
  open(userId: string, after: number, raw: ServerResponse, takeOver: () => void, stillAllowed?: Stream['stillAllowed']): void {
    this.admit(userId);
    takeOver();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // HEAD: the head a stream would have, and no stream. Node sends a HEAD answer's head only as it ends, and writes
    // nothing of a body: a stream opened for it said nothing, ever, and held a place.
    if (raw.req?.method === 'HEAD') return void raw.end();
    raw.write('retry: 2000\n\n');
    const stream: Stream = { raw, last: after, lastWrite: Date.now(), stillAllowed };
    let listening = this.byUser.get(userId);
    if (!listening) this.byUser.set(userId, (listening = { streams: new Set(), known: after, reading: false, again: false }));
    listening.streams.add(stream);
    this.count++;
    if (this.count === 1) this.startWatching();
    raw.on('close', () => this.forget(userId, stream));
    // Its client left while the stream was being opened: no 'close' is coming, and it must not count for ever.
    if (raw.socket?.destroyed !== false) return this.forget(userId, stream);
    // What came after `after` (a Last-Event-ID) or meanwhile, before the first wake.
    this.wake(userId);
  }

  /** Throws 429 (this user's streams) or 503 (the process's, or closing) when one more stream would be one too many. */
  admit(userId: string): void {
    if (this.closed)
      throw new AppError(503, ErrorCode.serverBusy, 'The server is shutting down: retry later', undefined, { 'retry-after': '1' });
    const mine = this.byUser.get(userId)?.streams.size ?? 0;
    if (mine >= this.perUser)
      throw new AppError(
        429,
        ErrorCode.tooManyStreams,
        `This user has ${mine} live streams open already, the most allowed at once: close one first`,
        undefined,
        { 'retry-after': RETRY_AFTER },
      );
    if (this.count >= this.max)
      throw new AppError(503, ErrorCode.serverBusy, 'The server holds as many live streams as it can: retry later', undefined, {
        'retry-after': RETRY_AFTER,
      });
  }

  closeAll(): void {
    this.closed = true;
    for (const listening of [...this.byUser.values()]) for (const stream of [...listening.streams]) stream.raw.end();
    this.stopWatching?.();
    this.stopWatching = undefined;
    clearInterval(this.heartbeat);
  }

  private forget(userId: string, stream: Stream): void {
    const listening = this.byUser.get(userId);
    if (!listening?.streams.delete(stream)) return;
    this.count--;
    if (listening.streams.size === 0) this.byUser.delete(userId);
    if (this.count === 0) {
      this.stopWatching?.();
      this.stopWatching = undefined;
      clearInterval(this.heartbeat);
    }
  }

  private startWatching(): void {
    this.stopWatching = this.deps.store.watchNotifications((userIds) => {
      if (userIds === undefined) void this.lookAtAll();
      else for (const userId of userIds) this.wake(userId);
    });
    // A third of the interval: a stream idle for `heartbeatMs` gets its comment line within a third more.
    this.heartbeat = setInterval(() => this.beat(), Math.max(10, this.heartbeatMs / 3));
    this.heartbeat.unref();
  }

  private beat(): void {
    const now = Date.now();
    for (const listening of this.byUser.values())
      for (const stream of listening.streams)
        if (stream.waiting !== undefined) {
          // Its client has taken nothing for a heartbeat's time: it does not read.
          if (now - stream.waiting >= this.heartbeatMs) stream.raw.destroy();
        } else if (now - stream.lastWrite >= this.heartbeatMs) {
          this.write(stream, ': keep-alive\n\n');
          // Otherwise a stream its caller may no longer read would stay open for as long as nothing is delivered.
          if (!stream.checking) {
            stream.checking = true;
            void this.endIfRefused(stream).finally(() => (stream.checking = false));
          }
        }
  }

  /**
   * Ends the stream, unfed but told why (its 'close' forgets it), if its caller may no longer read it; a check that
   * fails ends it too, and its client reconnects.
   */
  private async endIfRefused(stream: Stream): Promise<void> {
    if (!stream.stillAllowed) return;
    try {
      const refusal = await stream.stillAllowed();
      if (!refusal) return;
      this.write(stream, `event: ended\ndata: ${JSON.stringify(refusal)}\n\n`);
    } catch {
      // Ended below.
    }
    stream.raw.end();
  }

  /** `userId` may have new notifications: read them for all its streams (again after a read under way). */
  private wake(userId: string): void {
    const listening = this.byUser.get(userId);
    if (!listening) return;
    if (listening.reading) {
      listening.again = true;
      return;
    }
    listening.reading = true;
    this.send(userId, listening)
      .catch((error: unknown) => {
        // The client reconnects and resumes from its Last-Event-ID.
        this.onError(error);
        for (const stream of [...listening.streams]) stream.raw.end();
      })
      .finally(() => (listening.reading = false));
  }

  private async send(userId: string, listening: Listening): Promise<void> {
    do {
      listening.again = false;
      if (listening.streams.size === 0) return;
      let from = Infinity;
      for (const stream of listening.streams) if (stream.waiting === undefined) from = Math.min(from, stream.last);
      // Every stream waits for its client to take what it holds: each one's 'drain' wakes the user again.
      if (from === Infinity) return;
      const batch = await notificationsAfter(this.deps, userId, from, BATCH);
      const events = batch.notifications.map(
        ({ seq, notification }) => [seq, `event: notification\nid: ${notification.id}\ndata: ${JSON.stringify(notification)}\n\n`] as const,
      );
      // A stream whose caller may no longer read it ends here, before it is fed.
      if (events.length > 0) await Promise.all([...listening.streams].map((stream) => this.endIfRefused(stream)));
      for (const stream of listening.streams) {
        // Opened during the read, further behind: its opening woke the user, the next round reads from it.
        if (stream.waiting !== undefined || stream.last < from) continue;
        for (const [seq, event] of events) if (seq > stream.last) this.write(stream, event);
        // Every number up to the batch's last was read.
        stream.last = Math.max(stream.last, batch.lastSeq);
        // Its client has not taken what it holds yet: the next batch waits for it (a long backlog at its pace).
        if (stream.raw.writableNeedDrain && !stream.raw.destroyed) {
          stream.waiting = Date.now();
          stream.raw.once('drain', () => {
            stream.waiting = undefined;
            this.wake(userId);
          });
        }
      }
      listening.known = Math.max(listening.known, batch.lastSeq);
      if (events.length === BATCH) listening.again = true;
    } while (listening.again);
  }

  /**
   * Anyone may have new notifications (another process wrote, and the store cannot say for whom): one query
   * reads the counters of every user with a stream; those whose counter moved are read.
   */
  private async lookAtAll(): Promise<void> {
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = true;
    try {
      do {
        this.lookAgain = false;
        const seqs = await this.deps.store.notifications.latestSeqs([...this.byUser.keys()]);
        for (const [userId, seq] of seqs) {
          const listening = this.byUser.get(userId);
          if (!listening || seq <= listening.known) continue;
          listening.known = seq;
          this.wake(userId);
        }
      } while (this.lookAgain);
    } catch (error) {
      this.onError(error);
    } finally {
      this.looking = false;
    }
  }

  /**
   * Written unless the stream is ending (a write after `end` would be an error event nobody listens to). A stream
   * whose client has left more than `maxBuffered` bytes unread is cut off instead: held in memory, what it does not
   * read would grow with every notification (8 streams that never read, resumed from the first notification of a
   * user who has 26,000, once took 1 GB). Its client reconnects and resumes with Last-Event-ID, nothing lost.
   */
  private write(stream: Stream, chunk: string): void {
    if (stream.raw.writableEnded || stream.raw.destroyed) return;
    if (stream.raw.writableLength > this.maxBuffered) {
      stream.raw.destroy();
      return;
    }
    stream.raw.write(chunk);
    stream.lastWrite = Date.now();
  }
}
