/**
 * The answers of one turn of the event loop, written together at its end (in the turn's check phase, after the
 * poll phase that read and handled its requests), in the order they were ready: as Redis writes its replies
 * before it waits for the next events. Written one by one as each was ready, every answer woke the load's
 * client on the other core (on a VM, an interrupt between cores a write); written together, the client, woken by
 * the first, finds the others there, and the requests it sends back arrive together for the next turn.
 * (docs/performance.md has the figures.)
 *
 * An answer waits for the others of its own turn, never for a later one: alone in its turn, it goes out at once
 * (in that turn's check phase), and one ready after the writes went (a write transaction's, whose group commits
 * in the same check phase, after them) goes out at once too, until the next request is read (`reading`).
 */
export class TurnWrites {
  private readonly writes: { write: () => void; failed: (error: unknown) => void }[] = [];
  /** The turn's writes went, and no request was read since: what is ready now goes at once. */
  private late = false;
  /** The turn's flush is asked for (in its check phase). */
  private flushing = false;
  private stopped = false;

  /** Runs `write` at the end of this turn, after the writes deferred before it; `failed` if it throws. */
  defer(write: () => void, failed: (error: unknown) => void): void {
    if (this.late || this.stopped) return run(write, failed);
    this.writes.push({ write, failed });
    this.flushAtTurnEnd();
  }

  /**
   * A request is being read: a new turn's answers wait for each other again. The turn's flush is asked for now,
   * before anything its requests ask for the check phase: a write transaction's group commit (`GroupCommit`) asked
   * for by a write read before the turn's first answer was ready would otherwise run first, and the turn's read
   * answers would wait for its commit.
   */
  reading(): void {
    this.late = false;
    this.flushAtTurnEnd();
  }

  private flushAtTurnEnd(): void {
    if (this.flushing || this.stopped) return;
    this.flushing = true;
    setImmediate(this.flush);
  }

  /** Writes what waits now, and from now on each write at once (the server is closing). */
  stop(): void {
    this.stopped = true;
    this.flush();
  }

  private readonly flush = () => {
    this.flushing = false;
    this.late = true;
    for (const { write, failed } of this.writes.splice(0)) run(write, failed);
  };
}

/** One write that throws is handed to its `failed`, and the others still run. */
function run(write: () => void, failed: (error: unknown) => void): void {
  try {
    write();
  } catch (error) {
    failed(error);
  }
}
