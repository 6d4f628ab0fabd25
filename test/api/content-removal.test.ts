import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/** GET /statuses, DELETE /statuses/{id}, /comments/{id}, /likes/{id} (docs/api.md, "Moderating content and people"): who removes, what vanishes, who is told. */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Removal' } })).body.id;
});

const page = async (owner: Who, privacy: string) =>
  (await t.call('POST', '/pages', { as: owner.creds, body: { name: `${privacy} garden`, privacy, page_configuration_id: configId, user_id: owner.user.id } }))
    .body as { id: string };
const join = async (who: Who, pageId: string) =>
  expect((await t.call('POST', '/follows', { body: { followable_type: 'Page', followable_id: pageId, user_id: who.user.id } })).status).toBe(201);
const post = async (who: Who, body: Record<string, unknown> = {}) => {
  const res = await t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, content: 'first post here', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};
const comment = async (who: Who, statusId: string) => {
  const res = await t.call('POST', '/comments', { as: who.creds, body: { user_id: who.user.id, status_id: statusId, content: 'a comment' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};
const like = async (who: Who, body: Record<string, unknown>) => {
  const res = await t.call('POST', '/likes', { as: who.creds, body: { user_id: who.user.id, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};
const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((s) => s.id);
const notificationsOf = async (who: Who) =>
  (await t.call('GET', `/users/${who.user.id}/notifications?per_page=100`, { as: who.creds })).body as { notification_type: string; action_name: string; target_id: string }[];

describe('GET /statuses', () => {
  it('lists statuses newest first, filtered, each visible as in the stream', async () => {
    const [owner, member, outsider] = [await t.member(), await t.member(), await t.member()];
    const secret = await page(owner, 'secret');
    const pub = await page(owner, 'public');
    await join(member, secret.id);
    const a = await post(owner, { page_id: pub.id });
    const b = await post(owner, { page_id: secret.id });
    const c = await post(owner);
    const byOwner = await t.call('GET', `/statuses?user_id=${owner.user.id}`, { as: member.creds });
    expect(byOwner.status).toBe(200);
    expect(ids(byOwner)).toEqual([c.id, b.id, a.id]);
    expect(byOwner.body.total_items).toBe(3);
    const forOutsider = await t.call('GET', `/statuses?user_id=${owner.user.id}`, { as: outsider.creds });
    expect(ids(forOutsider)).toEqual([c.id, a.id]);
    expect(forOutsider.body.total_items).toBe(2);
    expect(ids(await t.call('GET', `/statuses?page_id=${secret.id}`, { as: outsider.creds }))).toEqual([]);
    expect(ids(await t.call('GET', `/statuses?page_id=${secret.id}`, { as: member.creds }))).toEqual([b.id]);
    expect(ids(await t.call('GET', `/statuses?page_id=${secret.id}`))).toEqual([b.id]);
    expect((await t.call('GET', '/statuses?per_page=101')).status).toBe(400);
  });
});

describe('DELETE /statuses/{id}', () => {
  it('lets the author, the page administrator and an Admin remove; anyone else gets 403', async () => {
    const [owner, author, other] = [await t.member(), await t.member(), await t.member()];
    const pub = await page(owner, 'public');
    await join(author, pub.id);
    await join(other, pub.id);
    const s1 = await post(author, { page_id: pub.id });
    const s2 = await post(author, { page_id: pub.id });
    const s3 = await post(author, { page_id: pub.id });
    const profile = await post(author);
    expect((await t.call('DELETE', `/statuses/${s1.id}`, { as: other.creds })).status).toBe(403);
    // The page's administrator has no say over a profile's status.
    expect((await t.call('DELETE', `/statuses/${profile.id}`, { as: owner.creds })).status).toBe(403);
    expect((await t.call('DELETE', `/statuses/${s1.id}`, { as: author.creds })).status).toBe(204);
    expect((await t.call('DELETE', `/statuses/${s2.id}`, { as: owner.creds })).status).toBe(204);
    expect((await t.call('DELETE', `/statuses/${s3.id}`)).status).toBe(204);
    // Again: an Admin (who still reads it) is told it was removed already, and when; its author finds nothing.
    const again = await t.call('DELETE', `/statuses/${s3.id}`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/^This status was already removed \(\d{4}-\d\d-\d\dT/);
    expect((await t.call('DELETE', `/statuses/${s3.id}`, { as: author.creds })).status).toBe(404);
    expect((await t.call('DELETE', '/statuses/nope')).status).toBe(404);
  });

  it('makes the status vanish from every list, stream and count, keeps it for Admins, and takes comments and likes with it', async () => {
    const [owner, author, reader] = [await t.member(), await t.member(), await t.member()];
    const pub = await page(owner, 'public');
    await join(author, pub.id);
    await join(reader, pub.id);
    const kept = await post(author, { page_id: pub.id, content: 'kept' });
    const gone = await post(author, { page_id: pub.id, content: 'spam spam spam' });
    const c = await comment(reader, gone.id);
    await like(reader, { status_id: gone.id });
    await like(owner, { comment_id: c.id });
    const streamBefore = (await t.call('GET', `/users/${reader.user.id}/stream`, { as: reader.creds })).body;
    expect(ids({ body: streamBefore })).toEqual([gone.id, kept.id]);

    const res = await t.call('DELETE', `/statuses/${gone.id}?reason=spam`, { as: owner.creds, headers: { 'x-request-id': 'remove-spam-1' } });
    expect(res.status).toBe(204);

    const stream = (await t.call('GET', `/users/${reader.user.id}/stream`, { as: reader.creds })).body;
    expect(ids({ body: stream })).toEqual([kept.id]);
    expect(stream.total_items).toBe(1);
    const listed = await t.call('GET', `/statuses?page_id=${pub.id}`, { as: reader.creds });
    expect(ids(listed)).toEqual([kept.id]);
    expect(listed.body.total_items).toBe(1);
    expect((await t.call('GET', `/statuses/${gone.id}`, { as: reader.creds })).status).toBe(404);
    expect((await t.call('GET', `/statuses/${gone.id}`, { as: author.creds })).status).toBe(404);
    expect((await t.call('GET', `/statuses/${gone.id}/comments`, { as: reader.creds })).status).toBe(404);
    expect((await t.call('GET', `/comments/${c.id}`, { as: reader.creds })).status).toBe(404);
    // Liking or commenting what is gone: 404.
    expect((await t.call('POST', '/likes', { as: author.creds, body: { user_id: author.user.id, status_id: gone.id } })).status).toBe(404);

    const asAdmin = await t.call('GET', `/statuses/${gone.id}`);
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).toMatchObject({ id: gone.id, content: 'spam spam spam', removed_by: owner.user.id, removal_reason: 'spam' });
    expect(asAdmin.body.removed_at).toBe(t.clock().toISOString());
    expect((await t.call('GET', `/comments/${c.id}`)).body).toMatchObject({ id: c.id, removed_by: owner.user.id });

    const told = (await notificationsOf(author)).filter((n) => n.notification_type === 'content_removed');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ action_name: 'removed', target_id: gone.id });
    const audit = (await t.call('GET', `/audit_log?target_id=${gone.id}`)).body.items;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'status.remove', actor_id: owner.user.id, target_type: 'status', request_id: 'remove-spam-1' });
    // Whose it was, with the words and the reason.
    expect(audit[0].summary).toBe(`removed ${author.user.nickname}'s status "spam spam spam" (spam)`);
    expect(await t.store.checkCounts()).toEqual([]);
  });

  it('tells no one and audits nothing when the author removes their own; takes a reason in the body', async () => {
    const author = await t.member();
    const s = await post(author);
    expect((await t.call('DELETE', `/statuses/${s.id}`, { as: author.creds, body: { reason: 'typo' } })).status).toBe(204);
    expect((await notificationsOf(author)).filter((n) => n.notification_type === 'content_removed')).toHaveLength(0);
    expect((await t.call('GET', `/audit_log?target_id=${s.id}`)).body.items).toHaveLength(0);
    expect((await t.call('GET', `/statuses/${s.id}`)).body.removal_reason).toBe('typo');
    expect((await t.call('DELETE', `/statuses/${s.id}`, { as: author.creds, body: { reason: 'x', extra: 1 } })).status).toBe(422);
  });
});

describe('a status commented on a thousand times and more', () => {
  it('is removed with all its comments, the reports on them settled and unquoted (one term each was a 500 on SQLite)', async () => {
    const [author, reader] = [await t.member(), await t.member()];
    const status = await post(author, { content: 'buy cheap watches' });
    // Written straight into the store: a thousand comments through the API are a thousand requests for one test.
    const now = new Date().toISOString();
    const commentIds = Array.from({ length: 1200 }, () => newId());
    await t.store.transaction(async (tx) => {
      for (const id of commentIds) await tx.comments.insert({ id, status_id: status.id, user_id: author.user.id, content: 'watches', likes_count: 0, created_at: now, updated_at: now });
      await tx.statuses.addToCount(status.id, 'comments_count', commentIds.length);
    });
    const report = async (target_type: string, target_id: string) =>
      (await t.ok('POST', '/reports', reader, { user_id: reader.user.id, target_type, target_id, reason: 'spam' })).id as string;
    const reports = [await report('Status', status.id), await report('Comment', commentIds[0]!), await report('Comment', commentIds.at(-1)!)];
    expect((await t.call('DELETE', `/statuses/${status.id}`)).status).toBe(204);
    for (const id of reports) expect(await t.ok('GET', `/reports/${id}`, reader)).toMatchObject({ state: 'resolved', resolution: 'removed', target: { excerpt: null } });
    expect((await t.call('GET', `/comments/${commentIds.at(-1)}`, { as: reader.creds })).status).toBe(404);
    expect((await t.ok('GET', `/removed_content?target_type=Comment&user_id=${author.user.id}`)).total_items).toBe(commentIds.length);
  });
});

describe("content in an event's conversation", () => {
  it("is removed by the administrator of the event's page, who may not read it; anyone else outside it gets 403", async () => {
    const [owner, host, guest, other] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const pub = await page(owner, 'public');
    for (const who of [host, guest, other]) await join(who, pub.id);
    const event = await t.call('POST', '/events', {
      as: host.creds,
      body: { name: 'Meet', user_id: host.user.id, page_id: pub.id, start_date: '2031-12-01T10:00:00Z', end_date: '2031-12-01T12:00:00Z' },
    });
    expect(event.status, JSON.stringify(event.body)).toBe(201);
    expect((await t.call('PUT', `/events/${event.body.id}/attendance`, { as: guest.creds, body: { user_id: guest.user.id, answer: 'yes' } })).status).toBe(200);
    const said = await post(guest, { event_id: event.body.id });
    const answered = await comment(host, said.id);
    // The page's creator did not answer: the conversation is closed to them (403), yet theirs to moderate.
    expect((await t.call('GET', `/statuses/${said.id}`, { as: owner.creds })).status).toBe(403);
    for (const [path, noun] of [[`/comments/${answered.id}`, 'comment'], [`/statuses/${said.id}`, 'status']] as const) {
      const refused = await t.call('DELETE', path, { as: other.creds });
      expect(refused.status, noun).toBe(403);
      expect(refused.body.error.message).toMatch(/conversation is open to its creator/);
      expect((await t.call('DELETE', path, { as: owner.creds })).status, noun).toBe(204);
    }
    expect((await t.call('GET', `/statuses/${said.id}`, { as: guest.creds })).status).toBe(404);
  });
});

describe('DELETE /comments/{id}', () => {
  it('removes a comment for its author, the page administrator or an Admin; the count follows', async () => {
    const [owner, author, commenter, other] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const pub = await page(owner, 'public');
    await join(author, pub.id);
    const s = await post(author, { page_id: pub.id });
    const [c1, c2] = [await comment(commenter, s.id), await comment(commenter, s.id)];
    await like(author, { comment_id: c1.id });
    expect((await t.call('DELETE', `/comments/${c1.id}`, { as: other.creds })).status).toBe(403);
    expect((await t.call('DELETE', `/comments/${c1.id}`, { as: owner.creds, body: { reason: 'rude' } })).status).toBe(204);
    const list = await t.call('GET', `/statuses/${s.id}/comments`, { as: other.creds });
    expect(ids(list)).toEqual([c2.id]);
    expect(list.body.total_items).toBe(1);
    expect((await t.call('GET', `/statuses/${s.id}`, { as: other.creds })).body.comments_count).toBe(1);
    expect((await t.call('GET', `/comments/${c1.id}`, { as: commenter.creds })).status).toBe(404);
    expect((await t.call('GET', `/comments/${c1.id}`)).body).toMatchObject({ removal_reason: 'rude', removed_by: owner.user.id });
    expect((await t.call('GET', `/comments/${c2.id}`, { as: other.creds })).status).toBe(200);
    const told = (await notificationsOf(commenter)).filter((n) => n.notification_type === 'content_removed');
    expect(told).toMatchObject([{ target_id: c1.id }]);
    const removal = (await t.call('GET', `/audit_log?action=comment.remove&target_id=${c1.id}`)).body;
    expect(removal.total_items).toBe(1);
    expect(removal.items[0].summary).toBe(`removed ${commenter.user.nickname}'s comment "a comment" (rude)`);
    expect((await t.call('DELETE', `/comments/${c2.id}`, { as: commenter.creds })).status).toBe(204);
    expect((await t.call('GET', `/statuses/${s.id}`, { as: other.creds })).body.comments_count).toBe(0);
  });
});

describe('DELETE /likes/{id}', () => {
  it('takes a like back for the user who liked; 403 for others, 404 after', async () => {
    const [author, liker] = [await t.member(), await t.member()];
    const s = await post(author);
    const l = await like(liker, { status_id: s.id });
    expect((await t.call('GET', `/statuses/${s.id}`, { as: author.creds })).body.likes_count).toBe(1);
    expect((await t.call('DELETE', `/likes/${l.id}`, { as: author.creds })).status).toBe(403);
    expect((await t.call('DELETE', `/likes/${l.id}`, { as: liker.creds })).status).toBe(204);
    expect((await t.call('DELETE', `/likes/${l.id}`, { as: liker.creds })).status).toBe(404);
    expect((await t.call('GET', `/statuses/${s.id}`, { as: author.creds })).body.likes_count).toBe(0);
    // Liking again works once the like is gone.
    await like(liker, { status_id: s.id });
  });

  it('answers 404 for a like on what the caller cannot read (a private page they are not in), as it is hidden', async () => {
    const [owner, outsider, liker] = [await t.member(), await t.member(), await t.member()];
    const closed = await page(owner, 'private');
    await join(liker, closed.id);
    const s = await post(owner, { page_id: closed.id });
    const l = await like(liker, { status_id: s.id });
    const hidden = await t.call('DELETE', `/likes/${l.id}`, { as: outsider.creds, body: { bogus: 1 } });
    expect(hidden.status).toBe(422); // a body it does not take, before anything
    expect((await t.call('DELETE', `/likes/${l.id}`, { as: outsider.creds })).status).toBe(404);
    expect((await t.call('DELETE', `/likes/${l.id}`, { as: owner.creds })).status).toBe(403);
    expect((await t.call('DELETE', `/likes/${l.id}`, { as: liker.creds })).status).toBe(204);
    // The liker's own unlike is no moderator's act: not audited.
    expect((await t.call('GET', `/audit_log?action=like.remove&target_id=${l.id}`)).body.total_items).toBe(0);
  });

  it("audits an Admin's taking back another's like, naming whose it was", async () => {
    const [author, liker] = [await t.member(), await t.member()];
    const s = await post(author);
    const l = await like(liker, { status_id: s.id });
    expect((await t.call('DELETE', `/likes/${l.id}`)).status).toBe(204);
    const entries = (await t.call('GET', `/audit_log?action=like.remove&target_id=${l.id}`)).body.items;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_id: t.admin.id, target_type: 'like', summary: `took back ${liker.user.nickname}'s like of the status ${s.id}` });
    expect((await t.call('DELETE', `/likes/${l.id}`)).status).toBe(404);
  });
});

describe('GET /removed_content', () => {
  it('lists removed statuses and comments to Admins, newest removal first, by type, author and remover, with who, when and why', async () => {
    const [owner, member] = [await t.member(), await t.member()];
    const pageId = (await page(owner, 'public')).id;
    await join(member, pageId);
    const first = await post(member, { page_id: pageId });
    const onFirst = await comment(owner, first.id);
    const second = await post(member, { page_id: pageId });
    // The page's administrator removes the second, then an Admin the first (its comment with it).
    expect((await t.call('DELETE', `/statuses/${second.id}?reason=spam`, { as: owner.creds })).status).toBe(204);
    t.clock.advance(1000);
    expect((await t.call('DELETE', `/statuses/${first.id}`)).status).toBe(204);

    const byMember = await t.call('GET', `/removed_content?user_id=${member.user.id}`);
    expect(byMember.status).toBe(200);
    expect(byMember.body.total_items).toBe(2);
    expect(byMember.body.items).toEqual([
      expect.objectContaining({ id: first.id, target_type: 'Status', user_id: member.user.id, page_id: pageId, removed_by: t.admin.id, removal_reason: null }),
      expect.objectContaining({ id: second.id, target_type: 'Status', content: 'first post here', removed_by: owner.user.id, removal_reason: 'spam' }),
    ]);
    expect(Date.parse(byMember.body.items[0].removed_at)).toBeGreaterThan(Date.parse(byMember.body.items[1].removed_at));
    const comments = await t.call('GET', `/removed_content?target_type=Comment&user_id=${owner.user.id}`);
    expect(comments.body).toMatchObject({ items: [{ id: onFirst.id, target_type: 'Comment', status_id: first.id, removed_by: t.admin.id }], total_items: 1 });
    expect(ids(await t.call('GET', `/removed_content?removed_by=${owner.user.id}`))).toEqual([second.id]);
    expect((await t.call('GET', `/removed_content?removed_by=${owner.user.id}`)).body.total_items).toBe(1);

    // Paged by cursor, as every list.
    const one = await t.call('GET', `/removed_content?user_id=${member.user.id}&per_page=1`);
    expect(ids(one)).toEqual([first.id]);
    const next = /<\/public-api\/v1([^>]+)>; rel="next"/.exec(String(one.headers.link))![1]!;
    expect(ids(await t.call('GET', next))).toEqual([second.id]);

    // Removed content is the Admins' alone; a filter's words are checked.
    for (const who of [owner, member]) expect((await t.call('GET', '/removed_content', { as: who.creds })).status).toBe(403);
    expect((await t.call('GET', '/removed_content?target_type=User')).status).toBe(400);
  });
});

describe('the audit entry of a removal', () => {
  it('cuts a long summary between characters, never inside one', async () => {
    const author = await t.member();
    for (const reason of ['😀'.repeat(400), `x${'😀'.repeat(400)}`]) {
      const status = await post(author);
      expect((await t.call('DELETE', `/statuses/${status.id}`, { body: { reason } })).status).toBe(204);
      const [entry] = (await t.call('GET', `/audit_log?action=status.remove&target_id=${status.id}`)).body.items as { summary: string }[];
      expect(entry!.summary.length).toBeLessThanOrEqual(500);
      expect(entry!.summary).toMatch(/…$/);
      // No half of a surrogate pair (SQLite would keep U+FFFD in its place).
      expect(entry!.summary).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\ufffd/);
    }
  });
});

describe('GET /statuses/{id}/comments of a removed status', () => {
  it('is 404 for everyone; an Admin, who reads the status, is told it was removed with its comments', async () => {
    const [author, reader] = [await t.member(), await t.member()];
    const status = await post(author);
    await comment(reader, status.id);
    expect((await t.call('DELETE', `/statuses/${status.id}`, { as: author.creds })).status).toBe(204);
    const forAdmin = await t.call('GET', `/statuses/${status.id}/comments`);
    expect(forAdmin.status).toBe(404);
    expect(forAdmin.body.error.code).toBe('not_found');
    expect(forAdmin.body.error.message).toMatch(/^Status not found: it was removed \(\d{4}-\d\d-\d\dT[^)]+\), its comments with it \(GET \/removed_content lists them\)$/);
    const forReader = await t.call('GET', `/statuses/${status.id}/comments`, { as: reader.creds });
    expect([forReader.status, forReader.body.error.message]).toEqual([404, 'Status not found']);
    const unknown = await t.call('GET', `/statuses/${'0'.repeat(32)}/comments`);
    expect([unknown.status, unknown.body.error.message]).toEqual([404, 'Status not found']);
  });
});
