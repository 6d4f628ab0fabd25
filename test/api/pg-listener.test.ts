import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { AccessListener, watchAccessWrites } from '../../src/store/pg-listener.js';
import { onPostgres, PG_TEST_DB, withClient } from '../helpers/store-target.js';

/**
 * The PostgreSQL access caches' two halves, on a real server: the listener's version (moved by a
 * notification for its schema, undefined while not listening, a new generation after a lost connection),
 * and the watch over a pooled connection that moves it when this process commits a key, user or role change.
 */
const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.skipIf(!onPostgres)('PostgreSQL access caches [runs with AGORA_TEST_DB]', () => {
  it('a committed write to a key, user or role counts once at commit; rollbacks, other tables and last_used_at do not', async () => {
    const pool = new pg.Pool({ connectionString: PG_TEST_DB, max: 1 });
    pools.push(pool);
    let committed = 0;
    pool.on('connect', (client) => watchAccessWrites(client, () => committed++));
    const client = await pool.connect();
    try {
      // Temporary tables of the same names: `"users"` resolves to them first.
      await client.query('create temp table "users" (id text)');
      await client.query('create temp table "api_keys" (id text, last_used_at text)');
      await client.query('create temp table "pages" (id text)');
      await client.query('begin');
      await client.query('update "users" set "id" = $1 where "id" = $2', ['a', 'b']);
      expect(committed).toBe(0);
      await client.query('commit');
      expect(committed).toBe(1);
      await client.query('begin');
      await client.query('delete from "api_keys" where "id" = $1', ['a']);
      await client.query('rollback');
      await client.query('begin');
      await client.query('update "pages" set "id" = $1', ['a']);
      await client.query('commit');
      await client.query('update "api_keys" set "last_used_at" = $1 where "id" = $2', ['now', 'a']);
      expect(committed).toBe(1);
      await client.query('delete from "api_keys" where "id" = $1', ['a']);
      expect(committed).toBe(2);
    } finally {
      client.release();
    }
  });

  it('the version: none until listening, moved by its schema\'s notifications, a new generation after a lost connection', async () => {
    const listener = new AccessListener({ connectionString: PG_TEST_DB }, { heartbeatMs: 50, trustMs: 1000, retryMs: 20 });
    try {
      expect(listener.version()).toBeUndefined();
      await until(() => listener.version() !== undefined, 'listening');
      const first = listener.version();
      await withClient((c) => c.query("select pg_notify('agora_access', 'some_other_schema.users')"));
      await withClient((c) => c.query("select pg_notify('agora_access', current_schema() || '.users')"));
      await until(() => listener.version() !== first, 'the notification');
      const second = listener.version();
      listener.changed();
      expect(listener.version()).not.toBe(second);
      const third = listener.version();
      // Only its own schema's notification moved it: one step from `first` to `second`.
      expect(first!.split('.')[0]).toBe(second!.split('.')[0]);
      expect(Number(second!.split('.')[1]) - Number(first!.split('.')[1])).toBe(1);

      await withClient((c) =>
        c.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [`agora listener ${process.pid}`]),
      );
      const generation = (v: string | undefined) => v?.split('.')[0];
      await until(() => listener.version() !== undefined && generation(listener.version()) !== generation(first), 'listening again');
      // A new generation: nothing remembered under an earlier version is trusted again.
      expect([first, second, third]).not.toContain(listener.version());
    } finally {
      await listener.close();
    }
    expect(listener.version()).toBeUndefined();
  });

  it("new notifications: another store's users on this schema, not its own nor another schema's; \"anyone\" at each (re)connection", async () => {
    const listener = new AccessListener({ connectionString: PG_TEST_DB }, { heartbeatMs: 50, trustMs: 1000, retryMs: 20, fallbackMs: 60_000 });
    const told: (readonly string[] | undefined)[] = [];
    const stop = listener.watchNotifications('mine', (ids) => told.push(ids));
    try {
      await until(() => told.length === 1, 'listening');
      expect(told).toEqual([undefined]);
      const notify = (payload: string) =>
        withClient((c) => c.query("select pg_notify('agora_notifications', current_schema() || $1)", [payload]));
      await notify('|mine|u1');
      await withClient((c) => c.query("select pg_notify('agora_notifications', 'some_other_schema|theirs|u2')"));
      await notify('|theirs|u3,u4');
      await until(() => told.length === 2, 'the notification');
      expect(told[1]).toEqual(['u3', 'u4']);
      await withClient((c) =>
        c.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [`agora listener ${process.pid}`]),
      );
      // Listening again: whatever was sent meanwhile may be missed, so every user watched is looked at.
      await until(() => told.length === 3, 'listening again');
      expect(told[2]).toBeUndefined();
    } finally {
      stop();
      await listener.close();
    }
  });
});
