/** What the bar shows: counts so far, and the share of the input done (when its size is known). */
export interface ProgressState {
  created: number;
  already: number;
  failed: number;
  valid: number;
  skipped: number;
  bytes: number;
  total?: number;
}

/**
 * A one-line progress bar on a terminal (stderr): rows done, rate, and an ETA from the share of the file
 * done so far (not read: the reading runs ahead of the sending). Redrawn a few times a second, never per row.
 */
export class ProgressBar {
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly state: () => ProgressState,
  ) {
    this.timer = setInterval(() => this.draw(), 200);
  }

  stop(): void {
    clearInterval(this.timer);
    this.draw();
    this.stream.write('\n');
  }

  private draw(): void {
    const s = this.state();
    const rows = s.created + s.already + s.failed + s.valid + s.skipped;
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? rows / seconds : 0;
    const share = s.total ? Math.min(1, s.bytes / s.total) : undefined;
    const width = 24;
    const bar = share === undefined ? '' : `[${'#'.repeat(Math.round(share * width)).padEnd(width, '.')}] ${Math.floor(share * 100)}% `;
    const eta = share && share < 1 && seconds > 1 ? ` · ETA ${formatSeconds((seconds / share) * (1 - share))}` : '';
    const line = `${bar}${rows} rows · ${Math.round(rate)}/s${eta} · ${s.failed} failed`;
    this.stream.write(`\r\u001b[2K${line}`);
  }
}

const formatSeconds = (s: number) => (s < 60 ? `${Math.ceil(s)} s` : `${Math.floor(s / 60)} min ${Math.ceil(s % 60)} s`);
