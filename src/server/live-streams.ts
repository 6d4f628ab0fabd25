/**
 * Open live streams (Server-Sent Events). They never end by themselves, so the server ends them when it
 * closes: otherwise a graceful shutdown would wait for every listener to hang up.
 */
export class LiveStreams {
  private readonly open = new Set<() => void>();

  constructor(
    /** How often a stream looks for new notifications (when anything was written since it last looked). */
    readonly pollMs = 250,
    /** A comment line this often keeps proxies from closing an idle stream. */
    readonly heartbeatMs = 15_000,
  ) {}

  add(close: () => void): () => void {
    this.open.add(close);
    return () => this.open.delete(close);
  }

  closeAll(): void {
    for (const close of [...this.open]) close();
    this.open.clear();
  }
}
