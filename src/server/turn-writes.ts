/**
 * The answers of one turn of the event loop, written together at its end (in the turn's check phase, after the
 * poll phase that read and handled its requests), in the order they were ready: as Redis writes its replies
 * before it waits for the next events. Written one by one as each was ready, every answer woke the load's
 * client on the other core (on a VM, an interrupt between cores a write); written together, the client, woken by
 * the first, finds the others there, and the requests it sends back arrive together for the next turn.
 *
 * Measured on this 2-core machine, 50 connections, the load generator on the same cores: a bare node:http server
 * doing 150 µs of work a request, 193–197 → 177–180 µs of CPU a request (p99 17–18 → 14–15 ms); agora's varied
 * reads at 10,000 pages 154–166 → 94–111 µs, at a million 199–237 → 166–174 (README, "The current figures").
 * An answer waits for the others of its own turn, never for a later one: alone in its turn, it goes out at once.
 */
export class TurnWrites {
  private readonly writes: (() => void)[] = [];

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Runs `write` at the end of this turn, after the writes deferred before it. */
  defer(write: () => void): void {
    if (this.writes.push(write) === 1) setImmediate(this.flush);
  }

  /** One write that throws is reported, and the others still run. */
  private readonly flush = () => {
    for (const write of this.writes.splice(0)) {
      try {
        write();
      } catch (error) {
        this.onError(error);
      }
    }
  };
}
