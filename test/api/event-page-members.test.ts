import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import type { Credentials } from '../helpers/server.js';

/**
 * An event in a private page is its members' to answer: an answer opens the event's conversation, and the page
 * promised its content to its members. Against a fixed clock (2026-11-20T10:00:00Z): the events are to come.
 */
/** The statements the store ran, as they ran (their SQL): what a caller's wait could tell apart. */
const statements: string[] = [];
const t = useApp({ storeOptions: { onQuery: (sql) => statements.push(sql) } });
type Who = { user: { id: string }; creds: Credentials | undefined };

let configId: string;
beforeAll(async () => {
  configId = (await t.call('POST', '/page_configurations', { body: { name: 'Clubs' } })).body.id;
});

const page = async (owner: Who, privacy: string) =>
  (await t.ok('POST', '/pages', undefined, { name: `${privacy} club`, privacy, page_configuration_id: configId, user_id: owner.user.id })).id as string;
const event = async (creator: Who, pageId: string) =>
  (await t.ok('POST', '/events', undefined, { name: 'Meetup', user_id: creator.user.id, page_id: pageId, start_date: '2026-12-05T18:00:00Z', end_date: '2026-12-05T20:00:00Z', places_limit: 10 }))
    .id as string;
const answer = (eventId: string, who: Who, value: string) =>
  t.call('PUT', `/events/${eventId}/attendance`, { as: who.creds, body: { user_id: who.user.id, answer: value } });
const attendanceNotices = async (who: Who) =>
  ((await t.ok('GET', `/users/${who.user.id}/notifications`)) as { notification_type: string }[]).filter((n) => n.notification_type === 'event_attendance').length;

/** The page's owner, a member who joined by an accepted access request, and the event's creator (another member). */
async function privateEvent() {
  const [owner, member, creator, outsider] = [await t.member(), await t.member(), await t.member(), await t.member()];
  const pageId = await page(owner, 'private');
  for (const who of [member, creator]) {
    const request = await t.ok('POST', '/page_access_requests', who, { page_id: pageId, user_id: who.user.id });
    await t.ok('PUT', `/page_access_requests/${request.id}/accept`, owner);
  }
  return { owner, member, creator, outsider, pageId, eventId: await event(creator, pageId) };
}

describe('answering an event in a private page', () => {
  it('refuses a non-member with 403 forbidden, whatever the answer, and writes nothing', async () => {
    const { creator, outsider, eventId } = await privateEvent();
    for (const value of ['yes', 'maybe', 'no']) {
      const res = await answer(eventId, outsider, value);
      expect(res.status, value).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('Only members of this private page may answer its events') });
    }
    // An Admin answering for them is refused as they are: the rule is the answering user's.
    expect((await t.call('PUT', `/events/${eventId}/attendance`, { body: { user_id: outsider.user.id, answer: 'yes' } })).status).toBe(403);
    expect(await t.ok('GET', `/events/${eventId}`)).toMatchObject({ attendees_count: 0, places_left: 10 });
    expect((await t.ok('GET', `/events/${eventId}/attendees`)).total_items).toBe(0);
    expect(await attendanceNotices(creator)).toBe(0);
    // Nor is the conversation open to them: not to read, not to post in.
    const status = await t.ok('POST', '/statuses', creator, { user_id: creator.user.id, event_id: eventId, content: 'Bring chairs' });
    expect((await t.call('GET', `/statuses/${status.id}`, { as: outsider.creds })).status).toBe(403);
    expect(await t.ok('GET', `/statuses?event_id=${eventId}`, outsider)).toEqual({ items: [], total_items: 0 });
    const post = await t.call('POST', '/statuses', { as: outsider.creds, body: { user_id: outsider.user.id, event_id: eventId, content: 'Hi' } });
    expect(post.status).toBe(403);
  });

  it('takes the answers of its members, its creator and the Admins', async () => {
    const { owner, member, creator, eventId } = await privateEvent();
    const admin: Who = { user: { id: t.admin.id }, creds: undefined };
    for (const [who, value] of [[member, 'yes'], [owner, 'yes'], [admin, 'maybe']] as const) expect((await answer(eventId, who, value)).status).toBe(200);
    expect(await t.ok('GET', `/events/${eventId}`)).toMatchObject({ attendees_count: 2, places_left: 8 });
    expect(await attendanceNotices(creator)).toBe(2);
    const status = await t.ok('POST', '/statuses', member, { user_id: member.user.id, event_id: eventId, content: 'See you there' });
    expect((await t.call('GET', `/statuses/${status.id}`, { as: owner.creds })).status).toBe(200);
  });

  it('keeps a leaver’s answer, which they may take back, but closes the event to them: no conversation, no word of it', async () => {
    const { owner, member, creator, eventId } = await privateEvent();
    for (const who of [member, owner]) expect((await answer(eventId, who, 'yes')).status).toBe(200);
    const status = await t.ok('POST', '/statuses', member, { user_id: member.user.id, event_id: eventId, content: 'Count me in' });
    const follow = (await t.ok('GET', `/follows?user_id=${member.user.id}&followable_type=Page`)).items[0];
    expect((await t.call('DELETE', `/follows/${follow.id}`)).status).toBe(204);
    for (const value of ['maybe', 'yes']) expect((await answer(eventId, member, value)).status, value).toBe(403);
    expect(await t.ok('GET', `/events/${eventId}`)).toMatchObject({ attendees_count: 2 });
    expect((await t.call('GET', `/statuses/${status.id}`, { as: member.creds })).status).toBe(403);
    const post = await t.call('POST', '/statuses', { as: member.creds, body: { user_id: member.user.id, event_id: eventId, content: 'Still?' } });
    expect(post.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('while they are in it') });
    // The creator's next status is told to the yes still in the page (the page's owner), not to the leaver.
    const later = await t.ok('POST', '/statuses', creator, { user_id: creator.user.id, event_id: eventId, content: 'Doors at six' });
    await t.app.fanOut.drain();
    const toldOf = async (who: Who) =>
      ((await t.ok('GET', `/users/${who.user.id}/notifications`)) as { target_id: string }[]).some((n) => n.target_id === later.id);
    expect(await toldOf(owner)).toBe(true);
    expect(await toldOf(member)).toBe(false);
    // Their yes holds a place until they take it back; the no frees it, and opens nothing.
    const withdrawn = await answer(eventId, member, 'no');
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({ answer: 'no', event: { attendees_count: 1, places_left: 9 } });
    expect((await answer(eventId, member, 'yes')).status).toBe(403);
  });

  it('leaves a public page’s events open to everyone', async () => {
    const [owner, passerby] = [await t.member(), await t.member()];
    const eventId = await event(owner, await page(owner, 'public'));
    const res = await answer(eventId, passerby, 'yes');
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({ attendees_count: 1 });
    const status = await t.ok('POST', '/statuses', passerby, { user_id: passerby.user.id, event_id: eventId, content: 'On my way' });
    expect((await t.call('GET', `/statuses/${status.id}`, { as: passerby.creds })).status).toBe(200);
  });
});

/** Into the page (an Admin adds them: a secret page is joined by invite alone), or out of it. */
const join = (who: Who, pageId: string) => t.ok('POST', '/follows', undefined, { user_id: who.user.id, followable_type: 'Page', followable_id: pageId });
async function leave(who: Who, pageId: string) {
  const follow = (await t.ok('GET', `/follows?user_id=${who.user.id}&followable_type=Page&followable_id=${pageId}`)).items[0];
  expect((await t.call('DELETE', `/follows/${follow.id}`)).status).toBe(204);
}
async function say(who: Who, eventId: string, content: string): Promise<string> {
  const res = await t.call('POST', '/statuses', { as: who.creds, body: { user_id: who.user.id, event_id: eventId, content } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}
/** Whether `who` was told of the status, once the fan-out ran. */
async function toldOf(who: Who, statusId: string): Promise<boolean> {
  await t.app.fanOut.drain();
  return ((await t.ok('GET', `/users/${who.user.id}/notifications`)) as { target_id: string }[]).some((n) => n.target_id === statusId);
}

describe('who is told of the conversation of an event in a closed page: those who read it', () => {
  it.each(['private', 'secret'])('tells the event’s creator while they are in the %s page, not once they left it', async (privacy) => {
    const [owner, creator, guest] = [await t.member(), await t.member(), await t.member()];
    const pageId = await page(owner, privacy);
    for (const who of [creator, guest]) await join(who, pageId);
    const eventId = await event(creator, pageId);
    expect((await answer(eventId, guest, 'yes')).status).toBe(200);
    expect(await toldOf(creator, await say(guest, eventId, 'Who brings the kettle?'))).toBe(true);
    await leave(creator, pageId);
    const later = await say(guest, eventId, 'I will');
    // What they may not read (403; 404 in a secret page, hidden with it), they are not told of.
    expect((await t.call('GET', `/statuses/${later}`, { as: creator.creds })).status).toBe(privacy === 'secret' ? 404 : 403);
    expect(await toldOf(creator, later)).toBe(false);
  });

  it('tells the creator who reads the conversation without following the page: the page’s own creator, an Admin', async () => {
    const [owner, guest] = [await t.member(), await t.member()];
    const admin: Who = { user: { id: t.admin.id }, creds: undefined };
    const pageId = await page(owner, 'secret');
    await join(guest, pageId);
    const [ownEvent, adminEvent] = [await event(owner, pageId), await event(admin, pageId)];
    // The page's creator follows it from its creation; unfollowed, they are still in it (statusOpenTo), as an Admin is.
    await leave(owner, pageId);
    for (const [who, eventId] of [[owner, ownEvent], [admin, adminEvent]] as const) {
      expect((await answer(eventId, guest, 'yes')).status).toBe(200);
      const status = await say(guest, eventId, 'See you');
      expect((await t.call('GET', `/statuses/${status}`, { as: who.creds })).status).toBe(200);
      expect(await toldOf(who, status)).toBe(true);
    }
  });

  it('tells those who answered yes and read the conversation without following the page: its creator, an Admin', async () => {
    const [owner, creator] = [await t.member(), await t.member()];
    const admin: Who = { user: { id: t.admin.id }, creds: undefined };
    const pageId = await page(owner, 'private');
    await join(creator, pageId);
    const eventId = await event(creator, pageId);
    for (const who of [owner, admin]) expect((await answer(eventId, who, 'yes')).status).toBe(200);
    await leave(owner, pageId);
    const status = await say(creator, eventId, 'Doors at six');
    for (const who of [owner, admin]) {
      expect((await t.call('GET', `/statuses/${status}`, { as: who.creds })).status).toBe(200);
      expect(await toldOf(who, status)).toBe(true);
    }
  });

  it('tells the creator of an event in a public page or in none, in the page or not', async () => {
    const [owner, creator, guest] = [await t.member(), await t.member(), await t.member()];
    const pageId = await page(owner, 'public');
    await join(creator, pageId);
    const inPage = await event(creator, pageId);
    await leave(creator, pageId);
    const inNone = (await t.ok('POST', '/events', undefined, { name: 'Walk', user_id: creator.user.id, start_date: '2026-12-06T09:00:00Z', end_date: '2026-12-06T12:00:00Z' })).id;
    for (const eventId of [inPage, inNone]) {
      expect((await answer(eventId, guest, 'yes')).status).toBe(200);
      expect(await toldOf(creator, await say(guest, eventId, 'Coming'))).toBe(true);
    }
  });
});

describe('who is told of a yes to an event in a secret page: those who may know of the event', () => {
  it('tells its creator while they are in the page, not once they left it (the event, and who is in the page, hidden from them)', async () => {
    const [owner, creator, first, second] = [await t.member(), await t.member(), await t.member(), await t.member()];
    const pageId = await page(owner, 'secret');
    for (const who of [creator, first, second]) await join(who, pageId);
    const eventId = await event(creator, pageId);
    expect((await answer(eventId, first, 'yes')).status).toBe(200);
    expect(await attendanceNotices(creator)).toBe(1);
    await leave(creator, pageId);
    expect((await t.call('GET', `/events/${eventId}`, { as: creator.creds })).status).toBe(404);
    expect((await answer(eventId, second, 'yes')).status).toBe(200);
    expect(await attendanceNotices(creator)).toBe(1);
  });
});

describe('taking back an answer to an event of a secret page one left', () => {
  /** A secret page's event the member answered yes to, with another yes (the page's owner); then the member left. */
  async function leftSecretEvent() {
    const [owner, member, outsider] = [await t.member(), await t.member(), await t.member()];
    const pageId = await page(owner, 'secret');
    await join(member, pageId);
    const eventId = await event(owner, pageId);
    for (const who of [member, owner]) expect((await answer(eventId, who, 'yes')).status).toBe(200);
    await leave(member, pageId);
    return { owner, member, outsider, eventId };
  }
  const count = async (eventId: string, who: { creds: Credentials }) => (await t.ok('GET', `/events/${eventId}`, who)).attendees_count as number;

  it('takes the leaver’s no, which frees their place; the event stays hidden from them, and every other answer refused', async () => {
    const { owner, member, eventId } = await leftSecretEvent();
    expect(await count(eventId, owner)).toBe(2);
    expect((await t.call('GET', `/events/${eventId}`, { as: member.creds })).status).toBe(404);
    for (const value of ['yes', 'maybe']) expect((await answer(eventId, member, value)).status, value).toBe(404);
    const withdrawn = await answer(eventId, member, 'no');
    expect(withdrawn.status).toBe(200);
    // Their own answer, not the event: what it has become is not theirs to read.
    expect(withdrawn.body).toMatchObject({ event_id: eventId, user_id: member.user.id, answer: 'no', event: null });
    expect(await count(eventId, owner)).toBe(1);
    expect((await t.ok('GET', `/events/${eventId}/attendees?answer=yes`, owner)).items.map((a: { user_id: string }) => a.user_id)).toEqual([owner.user.id]);
    for (const path of [`/events/${eventId}`, `/events/${eventId}/attendees`]) expect((await t.call('GET', path, { as: member.creds })).status, path).toBe(404);
    expect((await t.ok('GET', `/events?ids=${eventId}`, member)).items).toEqual([]);
    // Still an answer of theirs: no again is no change; yes stays refused.
    expect((await answer(eventId, member, 'no')).status).toBe(200);
    expect((await answer(eventId, member, 'yes')).status).toBe(404);
    expect(await count(eventId, owner)).toBe(1);
  });

  it('refuses one who never answered as before (404, as for an event that does not exist); an Admin acting for the leaver reads the event', async () => {
    const { owner, member, outsider, eventId } = await leftSecretEvent();
    for (const id of [eventId, '0'.repeat(32)]) {
      const refused = await answer(id, outsider, 'no');
      expect([refused.status, refused.body.error]).toEqual([404, { code: 'not_found', message: 'Event not found', request_id: expect.any(String) }]);
    }
    // Nor does the time it takes tell them apart: the same statements run for a hidden event as for none.
    const ran = async (id: string) => {
      statements.length = 0;
      expect((await answer(id, outsider, 'no')).status).toBe(404);
      return statements.filter((q) => /\bevents\b|event_attendances/.test(q));
    };
    await ran('1'.repeat(32));
    expect(await ran(eventId)).toEqual(await ran('2'.repeat(32)));
    const forLeaver = await t.call('PUT', `/events/${eventId}/attendance`, { body: { user_id: member.user.id, answer: 'no' } });
    expect(forLeaver.status).toBe(200);
    expect(forLeaver.body).toMatchObject({ user_id: member.user.id, answer: 'no', event: { id: eventId, attendees_count: 1 } });
    expect(await count(eventId, owner)).toBe(1);
  });
});

/** Told of a comment or a like while one reads what it is on (`readsStatus`), as of a conversation. */
describe('comments and likes on content in a closed page', () => {
  const told = async (who: Who, type: string) =>
    ((await t.ok('GET', `/users/${who.user.id}/notifications`)) as { notification_type: string }[]).filter((n) => n.notification_type === type).length;

  it.each(['private', 'secret'])('tell its author while they are in the %s page, not once they left it', async (privacy) => {
    const [owner, author, other] = [await t.member(), await t.member(), await t.member()];
    const pageId = await page(owner, privacy);
    for (const who of [author, other]) await join(who, pageId);
    const status = await t.ok('POST', '/statuses', author, { user_id: author.user.id, page_id: pageId, content: 'Seeds to share' });
    const comment = await t.ok('POST', '/comments', author, { user_id: author.user.id, status_id: status.id, content: 'Mostly beans' });
    await t.ok('POST', '/comments', other, { user_id: other.user.id, status_id: status.id, content: 'I will take some' });
    await t.ok('POST', '/likes', other, { user_id: other.user.id, status_id: status.id });
    expect([await told(author, 'comment'), await told(author, 'like')]).toEqual([1, 1]);

    await leave(author, pageId);
    expect((await t.call('GET', `/statuses/${status.id}`, { as: author.creds })).status).toBe(privacy === 'secret' ? 404 : 403);
    await t.ok('POST', '/comments', other, { user_id: other.user.id, status_id: status.id, content: 'Beans, lovely' });
    await t.ok('POST', '/likes', other, { user_id: other.user.id, comment_id: comment.id });
    expect([await told(author, 'comment'), await told(author, 'like')]).toEqual([1, 1]);
    // The page's creator still reads it without following it, and is still told.
    await leave(owner, pageId);
    const owners = await t.ok('POST', '/statuses', owner, { user_id: owner.user.id, page_id: pageId, content: 'House rules' });
    await t.ok('POST', '/likes', other, { user_id: other.user.id, status_id: owners.id });
    expect(await told(owner, 'like')).toBe(1);
  });
});
