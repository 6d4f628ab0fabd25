/** Who got new notifications; undefined for "anyone may have" (the store cannot say): look at every user watched. */
export type NotifiedListener = (userIds: readonly string[] | undefined) => void;

/** What tells of other processes' notifications (per engine): started with the first watcher, ended after the last. */
export type OtherProcessesWatch = (emit: NotifiedListener) => () => void;

/** The watchers of new notifications (live streams): this process's told at commit, other processes' via `others`. */
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
