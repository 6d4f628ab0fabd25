import pg from 'pg';
import { ACCESS_CHANNEL } from './migrations/0011-access-notify.js';
import type { NotifiedListener } from './notification-watch.js';
import { NOTIFICATIONS_CHANNEL } from './migrations/0044-notify-at-insert.js';

interface ListenerTiming {
  /** How often the listening connection is asked `select 1` (default 1 s). */
  heartbeatMs: number;
  /** How long an answered heartbeat vouches for the connection, from when it was sent (default 2 s). */
  trustMs: number;
  /** The first wait before connecting again (default 100 ms), doubled up to 5 s while it fails. */
  retryMs: number;
  /** While notifications are watched and the connection cannot be trusted: how often to say "anyone may have" (1 s). */
  fallbackMs?: number;
}

const DEFAULT_LISTENER_TIMING: ListenerTiming = { heartbeatMs: 1000, trustMs: 2000, retryMs: 100, fallbackMs: 1000 };

/**
 * The PostgreSQL store's one listening connection (not the pool's): `agora_notifications` tells of other stores'
 * notifications ("anyone may have" while some may be missed); `agora_access` moves `version()` on each committed
 * change of keys, users and roles. The version is undefined until it listens, while it is lost, and when no heartbeat
 * answered within `trustMs` (a connection that died silently is not believed). Each connection is a new generation:
 * notifications may have been missed. Opened lazily, so admin commands that serve no request never open it.
 */
export class AccessListener {
  private client: pg.Client | undefined;
  private listening = false;
  private generation = 0;
  private changes = 0;
  private trustedUntil = 0;
  private heartbeatSince: number | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs: number;
  private started = false;
  private closed = false;
  private notified: { origin: string; emit: NotifiedListener; fallback: NodeJS.Timeout } | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly timing: ListenerTiming = DEFAULT_LISTENER_TIMING,
  ) {
    this.retryMs = timing.retryMs;
  }

  /** A value that moves on whenever a key, user or role may have changed; undefined while that cannot be told. */
  version(): string | undefined {
    if (!this.started) this.start();
    if (!this.listening || Date.now() >= this.trustedUntil) return undefined;
    return `${this.generation}.${this.changes}`;
  }

  /** Tells `emit` who other stores on this schema notified (undefined: some may be missed); answers how to stop. */
  watchNotifications(origin: string, emit: NotifiedListener): () => void {
    clearInterval(this.notified?.fallback);
    const unsure = () => this.version() === undefined && emit(undefined);
    const fallback = setInterval(unsure, this.timing.fallbackMs ?? 1000).unref();
    const watching = { origin, emit, fallback };
    this.notified = watching;
    if (!this.started) this.start();
    return () => {
      clearInterval(fallback);
      if (this.notified === watching) this.notified = undefined;
    };
  }

  /** This process committed a change to a key, a user or a role. */
  changed(): void {
    this.changes++;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.notified?.fallback);
    this.notified = undefined;
    clearInterval(this.heartbeat);
    clearTimeout(this.retry);
    const client = this.client;
    this.drop();
    await client?.end().catch(() => {});
  }

  private start(): void {
    this.started = true;
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ ...this.config, application_name: `agora listener ${process.pid}` });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.drop();
      void client.end().catch(() => {});
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    let schema = '';
    client.on('notification', (message) => {
      if (message.channel === ACCESS_CHANNEL && message.payload?.startsWith(schema)) this.changes++;
      else if (message.channel === NOTIFICATIONS_CHANNEL && message.payload)
        this.othersNotified(schema, message.payload);
    });
    try {
      await client.connect();
      const sent = Date.now();
      const row = (await client.query<{ schema: string }>('select current_schema() as schema')).rows[0];
      schema = `${row?.schema ?? ''}.`;
      await client.query(`listen ${ACCESS_CHANNEL}`);
      await client.query(`listen ${NOTIFICATIONS_CHANNEL}`);
      if (this.client !== client) {
        // Closed (or given up) while connecting.
        await client.end().catch(() => {});
        return;
      }
      this.generation++;
      this.listening = true;
      this.trustedUntil = sent + this.timing.trustMs;
      this.retryMs = this.timing.retryMs;
      this.heartbeat = setInterval(() => this.beat(client), this.timing.heartbeatMs).unref();
      this.notified?.emit(undefined);
    } catch {
      lost();
    }
  }

  /** `schema|origin|id,id,…` (ids and origin hold no `|`): for this schema from another store, its users are told. */
  private othersNotified(schemaDot: string, payload: string): void {
    const idsAt = payload.lastIndexOf('|');
    const originAt = payload.lastIndexOf('|', idsAt - 1);
    if (originAt < 0 || `${payload.slice(0, originAt)}.` !== schemaDot) return;
    if (!this.notified || payload.slice(originAt + 1, idsAt) === this.notified.origin) return;
    this.notified.emit(payload.slice(idsAt + 1).split(','));
  }

  /** `select 1` on the listening connection: an answer vouches that notifications sent before it arrived. */
  private beat(client: pg.Client): void {
    if (this.client !== client) return;
    const sent = Date.now();
    if (this.heartbeatSince !== undefined) {
      // One still unanswered: after a few beats, give the connection up.
      if (sent - this.heartbeatSince > 5 * this.timing.trustMs)
        client.emit('error', new Error('the listening connection stopped answering'));
      return;
    }
    this.heartbeatSince = sent;
    client.query('select 1').then(
      () => {
        if (this.client !== client) return;
        this.heartbeatSince = undefined;
        this.trustedUntil = Math.max(this.trustedUntil, sent + this.timing.trustMs);
      },
      () => {},
    );
  }

  private drop(): void {
    this.listening = false;
    this.client = undefined;
    this.heartbeatSince = undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private reconnectLater(): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.connect(), this.retryMs).unref();
    this.retryMs = Math.min(this.retryMs * 2, 5000);
  }
}

/** A write that changes what the access caches remember (not `last_used_at`, written as keys are used). */
const ACCESS_WRITE = /^\s*(?:insert\s+into|update|delete\s+from)\s+"(?:api_keys|users|permission_sets)"/i;
const MARK_USED = /^\s*update\s+"api_keys"\s+set\s+"last_used_at"\s*=\s*\$1\s+where/i;

/**
 * Watches a pool connection's statements: `onCommitted` is called once a write to a key, a user or a role
 * is committed through it (at its transaction's `commit`, or at once outside a transaction).
 */
export function watchAccessWrites(client: pg.PoolClient, onCommitted: () => void): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let inTransaction = false;
  let touched = false;
  const after = (result: unknown, then: () => void) => {
    if (result && typeof (result as Promise<unknown>).then === 'function')
      (result as Promise<unknown>).then(then, () => {});
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    const text = args[0];
    if (typeof text !== 'string') return result;
    if (text === 'begin' || text.startsWith('start transaction')) {
      inTransaction = true;
      touched = false;
    } else if (text === 'commit') {
      const committed = touched;
      inTransaction = false;
      touched = false;
      if (committed) after(result, onCommitted);
    } else if (text === 'rollback') {
      inTransaction = false;
      touched = false;
    } else if (ACCESS_WRITE.test(text) && !MARK_USED.test(text)) {
      if (inTransaction) touched = true;
      else after(result, onCommitted);
    }
    return result;
  };
}
