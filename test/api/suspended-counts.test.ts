import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/**
 * A suspended user's comments are hidden from all but Admins (docs/api.md, "Moderating content and people"), so a status's `comments_count` does
 * not count them for anyone else, wherever the status is read: its own read, `GET /statuses`, the stream.
 */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials };

const ok = (method: string, path: string, as?: Who, body?: Record<string, unknown>) => t.ok(method, path, as, body);

describe("a status's comments_count while a commenter is suspended", () => {
  it('leaves out their comments for all but Admins, and counts them again once the suspension is lifted', async () => {
    const [ada, bob, reader] = [await t.member(), await t.member(), await t.member()];
    await ok('POST', '/follows', undefined, { followable_type: 'User', followable_id: ada.user.id, user_id: reader.user.id });
    const status = await ok('POST', '/statuses', ada, { user_id: ada.user.id, content: 'seed swap on Saturday' });
    await ok('POST', '/comments', bob, { user_id: bob.user.id, status_id: status.id, content: 'buy my seeds' });
    await ok('POST', '/comments', bob, { user_id: bob.user.id, status_id: status.id, content: 'really, buy them' });
    await ok('POST', '/comments', reader, { user_id: reader.user.id, status_id: status.id, content: 'see you there' });

    const counts = async (as?: Who) => {
      const one = (await ok('GET', `/statuses/${status.id}`, as)).comments_count;
      const listed = (await ok('GET', `/statuses?user_id=${ada.user.id}`, as)).items[0].comments_count;
      const streamed = (await ok('GET', `/users/${reader.user.id}/stream`, as ?? undefined)).items[0].comments_count;
      const comments = (await ok('GET', `/statuses/${status.id}/comments`, as)).total_items;
      return { one, listed, streamed, comments };
    };
    expect(await counts(reader)).toEqual({ one: 3, listed: 3, streamed: 3, comments: 3 });

    await ok('PUT', `/users/${bob.user.id}/suspension`, undefined, { reason: 'spam' });
    expect(await counts(reader)).toEqual({ one: 1, listed: 1, streamed: 1, comments: 1 });
    expect(await counts(undefined)).toEqual({ one: 3, listed: 3, streamed: 3, comments: 3 });

    await ok('DELETE', `/users/${bob.user.id}/suspension`, undefined);
    expect(await counts(reader)).toEqual({ one: 3, listed: 3, streamed: 3, comments: 3 });
  });
});
