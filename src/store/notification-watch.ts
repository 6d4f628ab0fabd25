/**
 * Who got new notifications: their user ids, or undefined for "anyone may have" (another process wrote and
 * the store cannot say for whom, or PostgreSQL's listening connection was opened again or is down): then
 * every user watched must be looked at.
 */
export type NotifiedListener = (userIds: readonly string[] | undefined) => void;

/** What tells of other processes' notifications (per engine): started with the first watcher, stopped after the last. */
export type OtherProcessesWatch = (emit: NotifiedListener) => () => void;

/**
 * The store's watchers of new notifications (the server's live streams). This process's own are told once
 * their transaction committed (`Store.transaction`); other processes' through `others`.
 */
export class NotificationWatch {
  private readonly listeners = new Set<NotifiedListener>();
  private stopOthers: (() => void) | undefined;

  constructor(private readonly others?: OtherProcessesWatch) {}

  watch(listener: NotifiedListener): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.stopOthers = this.others?.((userIds) => this.emit(userIds));
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) this.stop();
    };
  }

  emit(userIds: readonly string[] | undefined): void {
    if (userIds?.length === 0) return;
    for (const listener of this.listeners) listener(userIds);
  }

  close(): void {
    this.listeners.clear();
    this.stop();
  }

  private stop(): void {
    this.stopOthers?.();
    this.stopOthers = undefined;
  }
}
