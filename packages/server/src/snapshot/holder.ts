/**
 * The snapshot being served, and its hot reload.
 *
 * Swapping: `current` is a plain reference. A request reads it once at its
 * start and finishes on that object, so a swap never disturbs a request in
 * flight; the old snapshot is garbage once the last such request is done.
 *
 * Reloading: when the file at `path` changes (fs.watch on its directory, which
 * sees an atomic rename onto the path, plus a stat poll as a fallback where
 * watching is unreliable, plus `reload()` for SIGHUP), the new file is read and
 * decoded, and only a snapshot that loads completely replaces the old one. A
 * file that fails to load is logged and refused; the old snapshot stays. A
 * file is identified by (dev, ino, size, mtime), so an unchanged file is not
 * decoded again and a refused file is not retried until it changes.
 *
 * @module
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { IpIntel } from '@ipintel/core';

export interface SnapshotEvents {
  loaded(info: { path: string; build_date: string; ms: number }): void;
  refused(info: { path: string; error: unknown }): void;
  missing(info: { path: string }): void;
}

export interface SnapshotHolderOptions {
  /** Reads and decodes a snapshot file (throws for a bad one). */
  readonly load: (path: string) => Promise<IpIntel>;
  readonly events: SnapshotEvents;
  /** Watch the file for changes (default true). */
  readonly watch?: boolean;
  /** Poll interval for the stat fallback, ms (default 1000; 0 = no polling). */
  readonly pollIntervalMs?: number;
}

export class SnapshotHolder {
  /** The snapshot being served, or undefined until one has loaded. */
  current: IpIntel | undefined;
  /** When `current` was loaded (ms since the epoch). */
  loadedAt: number | undefined;
  private identity = '';
  private refusedIdentity = '';
  private running: Promise<void> | undefined;
  /** The check that runs after `running`, asked for while it ran; forced if any of its callers forced. */
  private next: Promise<void> | undefined;
  private nextForced = false;
  private watcher: FSWatcher | undefined;
  private poller: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private closed = false;
  private missingReported = false;

  constructor(
    readonly path: string | undefined,
    private readonly options: SnapshotHolderOptions,
    initial?: IpIntel,
  ) {
    if (initial !== undefined) {
      this.current = initial;
      this.loadedAt = Date.now();
    }
  }

  /** Loads the file (when there is a path) and starts watching it. Resolves after the first attempt. */
  start(): Promise<void> {
    const path = this.path;
    if (path === undefined) return Promise.resolve();
    if (this.options.watch !== false) {
      try {
        this.watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
          if (name === null || name === basename(path)) this.schedule();
        });
        this.watcher.on('error', () => this.watcher?.close());
      } catch {
        // No directory yet, or no inotify: polling below still sees the file.
      }
      const every = this.options.pollIntervalMs ?? 1000;
      if (every > 0) {
        this.poller = setInterval(() => void this.check(false), every);
        this.poller.unref();
      }
    }
    return this.check(false);
  }

  /** Reloads now, even when the file looks unchanged (SIGHUP). Resolves once a check started after this call is done. */
  reload(): Promise<void> {
    return this.check(true);
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.poller !== undefined) clearInterval(this.poller);
    if (this.debounce !== undefined) clearTimeout(this.debounce);
  }

  /** Coalesces the burst of events one rename produces. */
  private schedule(): void {
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.check(false), 20);
    this.debounce.unref();
  }

  /**
   * Runs one check at a time. A check asked for while one runs may follow a
   * change the running one did not see (its stat came first), so one more
   * check runs after it, shared by every such request, forced if any of them
   * was (a SIGHUP is not lost to a poll that was running), and the callers
   * wait for that one: `reload()` resolves only after a check that started
   * after the call.
   */
  private check(force: boolean): Promise<void> {
    if (this.running === undefined) {
      this.running = this.checkOnce(force).finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.nextForced ||= force;
    this.next ??= this.running.then(() => {
      const forced = this.nextForced;
      this.next = undefined;
      this.nextForced = false;
      return this.closed ? undefined : this.check(forced);
    });
    return this.next;
  }

  private async checkOnce(force: boolean): Promise<void> {
    const path = this.path!;
    let id: string;
    try {
      const s = await stat(path);
      id = `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      if (!this.missingReported) this.options.events.missing({ path });
      this.missingReported = true;
      return;
    }
    this.missingReported = false;
    if (!force && (id === this.identity || id === this.refusedIdentity)) return;
    const t0 = performance.now();
    try {
      const intel = await this.options.load(path);
      if (this.closed) return;
      this.current = intel;
      this.loadedAt = Date.now();
      this.identity = id;
      this.options.events.loaded({ path, build_date: intel.info.build_date, ms: Math.round(performance.now() - t0) });
    } catch (error) {
      this.refusedIdentity = id;
      this.options.events.refused({ path, error });
    }
  }
}
