/**
 * A background worker's rhythm: run the work now when woken (after a change was committed), else every
 * `pollMs` (for changes made by another process); never two runs at once, and a wake during a run makes
 * one more run right after it. `stop()` waits for the run under way.
 */
export class WakeLoop {
  private timer: NodeJS.Timeout | undefined;
  private again = false;
  /** The run under way, if any. */
  current: Promise<void> | undefined;
  running = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly pollMs: number,
    private readonly onError?: (error: unknown) => void,
  ) {}

  start(): void {
    this.running = true;
    this.wake();
  }

  wake(): void {
    if (!this.running) return;
    if (this.current) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.current = this.work()
      .catch((error) => this.onError?.(error))
      .finally(() => {
        this.current = undefined;
        if (!this.running) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          this.timer = setTimeout(() => this.wake(), this.pollMs);
          this.timer.unref();
        }
      });
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.current;
  }
}
