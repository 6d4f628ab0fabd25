import { holdLine } from '../spinner.js';

/** What the bar shows: counts so far, and the share of the input done (when its size is known). */
export interface ProgressState {
  created: number;
  already: number;
  failed: number;
  valid: number;
  skipped: number;
  bytes: number;
  /** Bytes of the rows an earlier run did (`--resume`): passed over at once, they say nothing of the rate. */
  bytesSkipped?: number;
  total?: number;
}

/**
 * A one-line progress bar on a terminal (stderr): rows done, rate, and an ETA from the share of the file
 * done so far (not read: the reading runs ahead of the sending). Redrawn a few times a second, never per row.
 */
export class ProgressBar {
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;
  /** The line is the bar's while it is shown: the slow-call spinner keeps off it. */
  private readonly release: () => void;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly state: () => ProgressState,
  ) {
    this.release = holdLine(stream);
    this.timer = setInterval(() => this.draw(), 200);
  }

  stop(): void {
    this.release();
    clearInterval(this.timer);
    this.draw();
    this.stream.write('\n');
  }

  private draw(): void {
    const s = this.state();
    const rows = s.created + s.already + s.failed + s.valid + s.skipped;
    const seconds = (Date.now() - this.started) / 1000;
    const sent = rows - s.skipped;
    const rate = seconds > 0 ? sent / seconds : 0;
    const share = s.total ? Math.min(1, s.bytes / s.total) : undefined;
    // The time left at this run's own pace: the bytes still to do over the bytes this run did a second.
    const pace = seconds > 1 ? (s.bytes - (s.bytesSkipped ?? 0)) / seconds : 0;
    const eta = share !== undefined && share < 1 && pace > 0 ? ` · ETA ${formatSeconds((s.total! - s.bytes) / pace)}` : '';
    const counts = `${rows} rows · ${Math.round(rate)}/s${eta} · ${s.failed} failed`;
    // Never wider than the terminal: a line that wraps is redrawn below itself and fills the screen.
    const columns = (this.stream.columns || 80) - 1;
    const room = Math.min(24, columns - counts.length - 8);
    const bar =
      share === undefined ? '' : room >= 5 ? `[${'#'.repeat(Math.round(share * room)).padEnd(room, '.')}] ${Math.floor(share * 100)}% ` : `${Math.floor(share * 100)}% `;
    const line = `${bar}${counts}`;
    this.stream.write(`\r\u001b[2K${line.length > columns ? `${line.slice(0, columns - 1)}…` : line}`);
  }
}

const formatSeconds = (s: number) => (s < 60 ? `${Math.ceil(s)} s` : `${Math.floor(s / 60)} min ${Math.ceil(s % 60)} s`);
