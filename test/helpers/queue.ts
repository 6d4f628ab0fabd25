import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { Credentials } from './server.js';

type Who = Awaited<ReturnType<TestApp['member']>>;

/** The calls the moderation queue's tests share, on `t` (a `useApp()`), each checked for its success status. */
export function queueCalls<Item>(t: TestApp) {
  return {
    /** `who` asks to join `pageId`, a second after the last thing the clock saw (the queue is in time order). */
    async ask(who: Who, pageId: string): Promise<string> {
      t.clock.advance(1000);
      const res = await t.call('POST', '/page_access_requests', { as: who.creds, body: { page_id: pageId, user_id: who.user.id } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id;
    },
    async queue(as?: Credentials, query = ''): Promise<{ items: Item[]; total_items: number; link?: string }> {
      const res = await t.call('GET', `/moderation_queue${query}`, { as });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { ...res.body, link: res.headers.link as string | undefined };
    },
  };
}
