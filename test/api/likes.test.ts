import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/** Who liked what: a status's or a comment's likes, one like, and who may read them (as what was liked). */
const t = useApp();
type Who = { user: { id: string; nickname?: string }; creds: Credentials };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Likes' } })).body.id;
});

const post = async (who: Who, body: Record<string, unknown> = {}) =>
  (await t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'A status', ...body } })).body as { id: string };
const like = async (who: Who, target: Record<string, string>) => {
  const res = await t.call('POST', '/likes', { as: who.creds, body: { user_id: who.user.id, ...target } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; user: { id: string } };
};
const ids = (body: { items: { id: string }[] }) => body.items.map((l) => l.id);

describe('likes lists', () => {
  it("lists a status's likes oldest first with who liked, totals them as likes_count, and pages by cursor", async () => {
    const author = await t.member();
    const fans = [await t.member(), await t.member(), await t.member()];
    const status = await post(author);
    const likes = [];
    for (const fan of fans) likes.push(await like(fan, { status_id: status.id }));
    // The record answered on creation carries who liked, as the list does.
    expect(likes[0]!.user.id).toBe(fans[0]!.user.id);

    const all = await t.call('GET', `/statuses/${status.id}/likes`, { as: author.creds });
    expect(all.status).toBe(200);
    expect(all.body.total_items).toBe(3);
    expect(ids(all.body)).toEqual(likes.map((l) => l.id));
    expect(all.body.items.map((l: { user: { id: string } }) => l.user.id)).toEqual(fans.map((f) => f.user.id));
    expect(all.body.items[0]).toMatchObject({ status_id: status.id, comment_id: null, user_id: fans[0]!.user.id });

    const first = await t.call('GET', `/statuses/${status.id}/likes?per_page=2`, { as: author.creds });
    expect(ids(first.body)).toEqual(likes.slice(0, 2).map((l) => l.id));
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
    expect(next, String(first.headers.link)).toBeDefined();
    const second = await t.call('GET', next!.replace('/public-api/v1', ''), { as: author.creds });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(ids(second.body)).toEqual([likes[2]!.id]);
    expect(second.body.total_items).toBe(3);
  });

  it("finds one user's like (the id to take back), and none for a user who did not like", async () => {
    const [author, fan, other] = [await t.member(), await t.member(), await t.member()];
    const status = await post(author);
    const mine = await like(fan, { status_id: status.id });
    const found = await t.call('GET', `/statuses/${status.id}/likes?user_id=${fan.user.id}`, { as: fan.creds });
    expect(found.body.total_items).toBe(1);
    expect(ids(found.body)).toEqual([mine.id]);
    const none = await t.call('GET', `/statuses/${status.id}/likes?user_id=${other.user.id}`, { as: fan.creds });
    expect(none.body).toMatchObject({ total_items: 0, items: [] });

    expect((await t.call('DELETE', `/likes/${mine.id}`, { as: fan.creds })).status).toBe(204);
    const after = await t.call('GET', `/statuses/${status.id}/likes`, { as: fan.creds });
    expect(after.body).toMatchObject({ total_items: 0, items: [] });
    expect((await t.call('GET', `/likes/${mine.id}`, { as: fan.creds })).status).toBe(404);
  });

  it("lists a comment's likes apart from its status's, and reads one like", async () => {
    const [author, fan] = [await t.member(), await t.member()];
    const status = await post(author);
    const comment = (await t.call('POST', '/comments', { as: fan.creds, body: { user_id: fan.user.id, status_id: status.id, content: 'hi' } })).body;
    const ofComment = await like(author, { comment_id: comment.id });
    const ofStatus = await like(fan, { status_id: status.id });
    expect(ids((await t.call('GET', `/comments/${comment.id}/likes`, { as: fan.creds })).body)).toEqual([ofComment.id]);
    expect(ids((await t.call('GET', `/statuses/${status.id}/likes`, { as: fan.creds })).body)).toEqual([ofStatus.id]);
    const one = await t.call('GET', `/likes/${ofComment.id}`, { as: fan.creds });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: ofComment.id, comment_id: comment.id, status_id: null, user: { id: author.user.id } });
  });

  it('is as hidden as what was liked: 403 in a page closed to the reader, 404 where they may not know it', async () => {
    const [owner, member, stranger] = [await t.member(), await t.member(), await t.member()];
    const pageOf = async (privacy: string) =>
      (await t.call('POST', '/pages', { as: owner.creds, body: { name: `${privacy} likes`, privacy, page_configuration_id: configId, user_id: owner.user.id } })).body
        .id as string;
    for (const [privacy, refused] of [
      ['private', 403],
      ['secret', 404],
    ] as const) {
      const pageId = await pageOf(privacy);
      const status = await post(owner, { page_id: pageId });
      const liked = await like(owner, { status_id: status.id });
      expect((await t.call('GET', `/statuses/${status.id}/likes`, { as: stranger.creds })).status, privacy).toBe(refused);
      // One like: 404 to whoever may not read what was liked, as its DELETE answers them.
      expect((await t.call('GET', `/likes/${liked.id}`, { as: stranger.creds })).status, privacy).toBe(404);
      expect((await t.call('GET', `/statuses/${status.id}/likes`, { as: member.creds })).status, privacy).toBe(refused);
      // Admins read everything.
      expect((await t.call('GET', `/statuses/${status.id}/likes`)).body.total_items, privacy).toBe(1);
      expect((await t.call('GET', `/likes/${liked.id}`)).status, privacy).toBe(200);
    }
    expect((await t.call('GET', `/statuses/${'0'.repeat(32)}/likes`)).status).toBe(404);
    expect((await t.call('GET', `/comments/${'0'.repeat(32)}/likes`)).status).toBe(404);
    expect((await t.call('GET', `/likes/${'0'.repeat(32)}`)).status).toBe(404);
  });

  it('goes with a removed status: its likes are gone, and its list is 404', async () => {
    const [author, fan] = [await t.member(), await t.member()];
    const status = await post(author);
    const liked = await like(fan, { status_id: status.id });
    expect((await t.call('DELETE', `/statuses/${status.id}`, { as: author.creds })).status).toBe(204);
    expect((await t.call('GET', `/statuses/${status.id}/likes`, { as: fan.creds })).status).toBe(404);
    expect((await t.call('GET', `/likes/${liked.id}`, { as: fan.creds })).status).toBe(404);
    // Admins still read the removed status; its likes went with it.
    expect((await t.call('GET', `/statuses/${status.id}`)).status).toBe(200);
    expect((await t.call('GET', `/likes/${liked.id}`)).status).toBe(404);
  });

  it("hides a comment's likes with the comment (a suspended author's: 404 but to Admins), and goes with a removed comment", async () => {
    const [author, commenter, fan] = [await t.member(), await t.member(), await t.member()];
    const status = await post(author);
    const comment = (await t.call('POST', '/comments', { as: commenter.creds, body: { user_id: commenter.user.id, status_id: status.id, content: 'hi' } })).body;
    const liked = await like(fan, { comment_id: comment.id });
    const mine = await t.call('GET', `/comments/${comment.id}/likes?user_id=${fan.user.id}`, { as: fan.creds });
    expect(ids(mine.body)).toEqual([liked.id]);
    expect((await t.call('GET', `/comments/${comment.id}/likes?user_id=${author.user.id}`, { as: fan.creds })).body.total_items).toBe(0);

    expect((await t.call('PUT', `/users/${commenter.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
    expect((await t.call('GET', `/comments/${comment.id}/likes`, { as: fan.creds })).status).toBe(404);
    expect((await t.call('GET', `/comments/${comment.id}/likes`)).body.total_items).toBe(1);
    expect((await t.call('DELETE', `/users/${commenter.user.id}/suspension`)).status).toBe(200);

    expect((await t.call('DELETE', `/comments/${comment.id}`, { as: commenter.creds })).status).toBe(204);
    expect((await t.call('GET', `/comments/${comment.id}/likes`, { as: fan.creds })).status).toBe(404);
    expect((await t.call('GET', `/likes/${liked.id}`)).status).toBe(404);
  });

  it("lists and counts a suspended user's like as likes_count does", async () => {
    const [author, fan] = [await t.member(), await t.member()];
    const status = await post(author);
    const liked = await like(fan, { status_id: status.id });
    expect((await t.call('PUT', `/users/${fan.user.id}/suspension`, { body: { reason: 'spam' } })).status).toBe(200);
    const listed = await t.call('GET', `/statuses/${status.id}/likes`, { as: author.creds });
    expect(ids(listed.body)).toEqual([liked.id]);
    expect(listed.body.total_items).toBe((await t.call('GET', `/statuses/${status.id}`, { as: author.creds })).body.likes_count);
  });

  it('is read by the user who liked, who may take it back, once what they liked is closed to them', async () => {
    const [owner, fan, other] = [await t.member(), await t.member(), await t.member()];
    const pageId = (
      await t.call('POST', '/pages', { as: owner.creds, body: { name: 'Left page', privacy: 'private', page_configuration_id: configId, user_id: owner.user.id } })
    ).body.id as string;
    const follow = await t.call('POST', '/follows', { body: { user_id: fan.user.id, followable_type: 'Page', followable_id: pageId } });
    expect(follow.status, JSON.stringify(follow.body)).toBe(201);
    const status = await post(owner, { page_id: pageId });
    const liked = await like(fan, { status_id: status.id });
    expect((await t.call('DELETE', `/follows/${follow.body.id}`, { as: fan.creds })).status).toBe(204);
    expect((await t.call('GET', `/statuses/${status.id}`, { as: fan.creds })).status).toBe(403);
    const own = await t.call('GET', `/likes/${liked.id}`, { as: fan.creds });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: liked.id, status_id: status.id });
    expect((await t.call('GET', `/likes/${liked.id}`, { as: other.creds })).status).toBe(404);
    // Found by what it likes too (the way to take it back without its id); the rest of the list stays closed.
    const mine = await t.call('GET', `/statuses/${status.id}/likes?user_id=${fan.user.id}`, { as: fan.creds });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body).toMatchObject({ items: [{ id: liked.id }], total_items: 1 });
    expect((await t.call('GET', `/statuses/${status.id}/likes`, { as: fan.creds })).status).toBe(403);
    expect((await t.call('GET', `/statuses/${status.id}/likes?user_id=${other.user.id}`, { as: fan.creds })).status).toBe(403);
    // Someone who never liked it learns nothing more than the read says.
    expect((await t.call('GET', `/statuses/${status.id}/likes?user_id=${other.user.id}`, { as: other.creds })).status).toBe(403);
    expect((await t.call('DELETE', `/likes/${liked.id}`, { as: fan.creds })).status).toBe(204);
    expect((await t.call('GET', `/statuses/${status.id}/likes?user_id=${fan.user.id}`, { as: fan.creds })).status).toBe(403);
  });
});
