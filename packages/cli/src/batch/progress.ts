/**
 * The progress line `batch` draws on a terminal's stderr: rows done, rate,
 * and — when the input size is known — percent and ETA. Redrawn at most every
 * REDRAW_MS with a carriage return; never used when stderr is not a TTY, so
 * piped runs print nothing extra.
 *
 * @module
 */
import type { OutStream } from '../io.js';

const REDRAW_MS = 200;
const BAR_WIDTH = 24;

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const mmss = `${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

export class Progress {
  private readonly started = performance.now();
  private last = 0;
  private drawn = false;

  constructor(
    private readonly err: OutStream,
    /** Input size in bytes, when known (a file), for percent and ETA. */
    private readonly totalBytes: number | null,
  ) {}

  /** Called after each written block; redraws when due. */
  update(rows: number, bytesDone: number, force = false): void {
    const now = performance.now();
    if (!force && now - this.last < REDRAW_MS) return;
    this.last = now;
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? rows / secs : 0;
    let line = `${count(rows)} rows  ${count(rate)}/s`;
    if (this.totalBytes !== null && this.totalBytes > 0) {
      const frac = Math.min(1, bytesDone / this.totalBytes);
      const fill = Math.round(frac * BAR_WIDTH);
      const eta = frac > 0 ? (secs * (1 - frac)) / frac : Number.NaN;
      line = `[${'#'.repeat(fill)}${'.'.repeat(BAR_WIDTH - fill)}] ${(frac * 100).toFixed(1).padStart(5)}%  ${line}  ETA ${formatDuration(eta)}`;
    }
    const width = (this.err.columns ?? 80) - 1;
    this.err.write(`\r${line.slice(0, width).padEnd(width)}`);
    this.drawn = true;
  }

  /** Removes the bar (the run stopped early). */
  clear(): void {
    if (this.drawn) this.err.write('\r\x1b[2K');
  }

  /** Replaces the bar with a final summary line. */
  finish(rows: number): void {
    const secs = (performance.now() - this.started) / 1000;
    if (this.drawn) this.err.write('\r\x1b[2K');
    this.err.write(`ipintel batch: ${count(rows)} rows in ${secs.toFixed(1)} s (${count(secs > 0 ? rows / secs : rows)}/s)\n`);
  }
}
