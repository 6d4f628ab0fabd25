import type { CopyProgress } from '../store/copy.js';

/**
 * The progress of `agora admin copy` on a terminal (stderr): a bar of the rows copied out of all of them,
 * the rate, an ETA and the table under way. Redrawn a few times a second, never per batch.
 */
export class CopyProgressBar {
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;
  private last: CopyProgress = { table: '', copied: 0, total: 0 };

  constructor(private readonly stream: NodeJS.WriteStream) {
    this.timer = setInterval(() => this.draw(), 200);
  }

  /**
   * Answers once the event loop has turned: a copy between two SQLite files never waits on anything (every read and
   * write is synchronous), so the bar, redrawn by a timer, would be drawn only at the end.
   */
  readonly update = (progress: CopyProgress): Promise<void> => {
    this.last = progress;
    return new Promise((resolve) => setImmediate(resolve));
  };

  stop(): void {
    clearInterval(this.timer);
    this.draw();
    this.stream.write('\n');
  }

  private draw(): void {
    const { table, copied, total } = this.last;
    const share = total ? Math.min(1, copied / total) : 1;
    const seconds = (Date.now() - this.started) / 1000;
    const width = 24;
    const bar = `[${'#'.repeat(Math.round(share * width)).padEnd(width, '.')}] ${Math.floor(share * 100)}%`;
    const rate = seconds > 0 ? Math.round(copied / seconds) : 0;
    const eta = share > 0 && share < 1 && seconds > 1 ? ` · ETA ${Math.ceil((seconds / share) * (1 - share))} s` : '';
    this.stream.write(`\r\u001b[2K${bar} ${copied}/${total} rows · ${rate}/s${eta} · ${table}`);
  }
}
