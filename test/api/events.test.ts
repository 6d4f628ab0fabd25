import { beforeAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';
import { HEX_ID, ISO } from '../helpers/api.js';
import type { Credentials } from '../helpers/server.js';

/** Gathering events against a fixed clock: 2026-11-20T10:00:00Z unless a test moves it. */
const t = useApp();
type Who = { user: { id: string }; creds: Credentials };

let creator: Who;
beforeAll(async () => {
  creator = await t.member();
});

const create = (body: Record<string, unknown>, as: Who = creator) =>
  t.call('POST', '/events', { as: as.creds, body: { user_id: as.user.id, ...body } });
const answer = (eventId: string, who: Who, value: string) =>
  t.call('PUT', `/events/${eventId}/attendance`, { as: who.creds, body: { user_id: who.user.id, answer: value } });

describe('POST /events', () => {
  it('creates an event with the spec’s fields and the contract’s (places, tickets as decimal strings)', async () => {
    const res = await create({
      name: 'Winter Market',
      start_date: '2026-12-12T09:00:00Z',
      end_date: '2026-12-12T17:30:00+01:00',
      description: 'Stalls and hot wine',
      places_limit: 50,
      tickets: [
        { name: 'Standard', price: '12.50', currency: 'eur' },
        { name: 'Free', price: '0', currency: 'EUR' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Winter Market',
      slug: 'winter-market',
      description: 'Stalls and hot wine',
      user_id: creator.user.id,
      page_id: null,
      start_date: '2026-12-12T09:00:00.000Z',
      end_date: '2026-12-12T16:30:00.000Z',
      places_limit: 50,
      places_left: 50,
      attendees_count: 0,
      tickets: [
        { name: 'Standard', price: '12.50', currency: 'EUR' },
        { name: 'Free', price: '0', currency: 'EUR' },
      ],
    });
    expect(res.body.id).toMatch(HEX_ID);
    expect(res.body.created_at).toMatch(ISO);
    const again = await create({ name: 'Winter Market', start_date: '2026-12-13T09:00:00Z', end_date: '2026-12-13T10:00:00Z' });
    expect(again.body.slug).toBe('winter-market-2');
    expect(again.body).toMatchObject({ places_limit: null, places_left: null, tickets: [] });
    expect((await t.call('GET', `/events/${res.body.id}`)).body).toEqual(res.body);
  });

  it('refuses dates that are not ISO 8601, an end before the start, float prices and bad places (422)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ start_date: '12/01/2026', end_date: '2026-12-01T10:00:00Z' }, 'start_date'],
      [{ start_date: '2026-12-01T10:00:00', end_date: '2026-12-01T11:00:00Z' }, 'start_date'],
      [{ start_date: '2026-02-30T10:00:00Z', end_date: '2026-03-01T11:00:00Z' }, 'start_date'],
      // The year 10000 once in UTC (stored `+010000-…`, it would sort before every other date).
      [{ start_date: '9999-12-31T23:00:00-14:00', end_date: '9999-12-31T23:30:00-14:00' }, 'start_date'],
      [{ start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T09:59:59Z' }, 'end_date'],
      [{ start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T11:00:00Z', places_limit: 0 }, 'places_limit'],
      [{ start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T11:00:00Z', tickets: [{ name: 'A', price: 12.5, currency: 'EUR' }] }, 'tickets.0.price'],
      [{ start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T11:00:00Z', tickets: [{ name: 'A', price: '12.555', currency: 'EUR' }] }, 'tickets.0.price'],
      [{ start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T11:00:00Z', tickets: [{ name: 'A', price: '1', currency: 'EURO' }] }, 'tickets.0.currency'],
    ];
    for (const [body, field] of cases) {
      const res = await create({ name: 'Bad', ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    expect((await create({ start_date: '2026-12-01T10:00:00Z' })).body.error.fields.map((f: { field: string }) => f.field)).toEqual(
      expect.arrayContaining(['name', 'end_date']),
    );
  });

  it('takes a page the creator is in; 403 for a page they are not in, 404 for a secret one', async () => {
    const config = await t.call('POST', '/page_configurations', { body: { name: 'Events' } });
    const owner = await t.member();
    const mk = (privacy: string) =>
      t.call('POST', '/pages', { as: owner.creds, body: { name: `P ${privacy}`, privacy, page_configuration_id: config.body.id, user_id: owner.user.id } });
    const [priv, secret] = [(await mk('private')).body, (await mk('secret')).body];
    const times = { start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T11:00:00Z' };
    expect((await create({ name: 'In page', page_id: priv.id, ...times }, owner)).status).toBe(201);
    expect((await create({ name: 'Outsider', page_id: priv.id, ...times })).status).toBe(403);
    expect((await create({ name: 'Outsider', page_id: secret.id, ...times })).status).toBe(404);
  });

  it('lets a Member create events only for themself (403 otherwise); an Admin for anyone', async () => {
    const other = await t.member();
    const times = { start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T11:00:00Z' };
    expect((await t.call('POST', '/events', { as: creator.creds, body: { name: 'x', user_id: other.user.id, ...times } })).status).toBe(403);
    expect((await t.call('POST', '/events', { body: { name: 'x', user_id: other.user.id, ...times } })).status).toBe(201);
  });
});

describe('PUT /events/{id}/attendance', () => {
  it('30 concurrent yes answers to 10 places: exactly 10 attendees, 20 × 409 event_full; a maybe frees one place', async () => {
    const event = (await create({ name: 'Small room', start_date: '2026-12-02T18:00:00Z', end_date: '2026-12-02T20:00:00Z', places_limit: 10 })).body;
    const people = await Promise.all(Array.from({ length: 30 }, () => t.member()));
    const answers = await Promise.all(people.map((p) => answer(event.id, p, 'yes')));
    const ok = answers.filter((a) => a.status === 200);
    const full = answers.filter((a) => a.status === 409);
    expect(ok).toHaveLength(10);
    expect(full).toHaveLength(20);
    for (const f of full) expect(f.body.error.code).toBe('event_full');
    const after = (await t.call('GET', `/events/${event.id}`)).body;
    expect(after).toMatchObject({ attendees_count: 10, places_left: 0 });
    const yes = await t.call('GET', `/events/${event.id}/attendees?answer=yes&per_page=100`);
    expect(yes.body.total_items).toBe(10);

    const first = people[answers.indexOf(ok[0]!)]!;
    const maybe = await answer(event.id, first, 'maybe');
    expect(maybe.status).toBe(200);
    expect(maybe.body).toMatchObject({ answer: 'maybe', event: { attendees_count: 9, places_left: 1 } });
    const latecomer = people[answers.indexOf(full[0]!)]!;
    expect((await answer(event.id, latecomer, 'yes')).status).toBe(200);
    expect((await answer(event.id, first, 'yes')).body.error.code).toBe('event_full');
    expect((await t.call('GET', `/events/${event.id}`)).body).toMatchObject({ attendees_count: 10, places_left: 0 });
  });

  it('moves between answers: yes twice keeps one place; no after yes frees it; the attendees list says who answered what', async () => {
    const event = (await create({ name: 'Open day', start_date: '2026-12-03T09:00:00Z', end_date: '2026-12-03T17:00:00Z' })).body;
    const [a, b] = [await t.member(), await t.member()];
    expect((await answer(event.id, a, 'yes')).body).toMatchObject({ user_id: a.user.id, answer: 'yes', event: { attendees_count: 1, places_left: null } });
    expect((await answer(event.id, a, 'yes')).body.event.attendees_count).toBe(1);
    await answer(event.id, b, 'maybe');
    expect((await answer(event.id, a, 'no')).body.event.attendees_count).toBe(0);
    const list = await t.call('GET', `/events/${event.id}/attendees`);
    expect(list.body.total_items).toBe(2);
    expect(Object.fromEntries(list.body.items.map((x: { user_id: string; answer: string }) => [x.user_id, x.answer]))).toEqual({
      [a.user.id]: 'no',
      [b.user.id]: 'maybe',
    });
    expect((await t.call('GET', `/events/${event.id}/attendees?answer=maybe`)).body.total_items).toBe(1);
    expect((await t.call('GET', `/events/${event.id}/attendees?answer=perhaps`)).status).toBe(400);
    expect((await answer(event.id, a, 'perhaps')).status).toBe(422);
  });

  it('refuses answers to an ended event with 409 event_ended', async () => {
    const event = (await create({ name: 'Last year', start_date: '2025-06-01T10:00:00Z', end_date: '2025-06-01T12:00:00Z' })).body;
    const res = await answer(event.id, await t.member(), 'yes');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('event_ended');
  });

  it('answers 404 for an unknown event and 403 when a Member answers for someone else', async () => {
    const [a, b] = [await t.member(), await t.member()];
    expect((await answer('0'.repeat(32), a, 'yes')).status).toBe(404);
    const event = (await create({ name: 'Mine', start_date: '2026-12-03T09:00:00Z', end_date: '2026-12-03T17:00:00Z' })).body;
    const res = await t.call('PUT', `/events/${event.id}/attendance`, { as: a.creds, body: { user_id: b.user.id, answer: 'yes' } });
    expect(res.status).toBe(403);
  });
});

describe('GET /events', () => {
  it('filters by date and by current_and_coming against the clock, soonest first', async () => {
    const owner = await t.member();
    const mk = async (name: string, start: string, end: string) =>
      (await create({ name, start_date: start, end_date: end }, owner)).body.id as string;
    // The clock says 2026-11-20T10:00:00Z.
    const past = await mk('Past', '2026-11-19T10:00:00Z', '2026-11-19T12:00:00Z');
    const running = await mk('Running', '2026-11-20T08:00:00Z', '2026-11-20T11:00:00Z');
    const coming = await mk('Coming', '2026-11-21T20:00:00Z', '2026-11-22T02:00:00Z');
    const endsNow = await mk('Ends now', '2026-11-20T09:00:00Z', '2026-11-20T10:00:00Z');
    const ids = async (query: string) =>
      (await t.call('GET', `/events?owner=${owner.user.id}&${query}`)).body.items.map((e: { id: string }) => e.id);

    expect(await ids('')).toEqual([past, running, endsNow, coming]);
    expect(await ids('event_date=current_and_coming')).toEqual([running, endsNow, coming]);
    expect(await ids('date=2026-11-20')).toEqual([running, endsNow]);
    expect(await ids('date=2026-11-19')).toEqual([past]);
    expect(await ids('date=2026-11-22')).toEqual([coming]);
    expect(await ids('date=2026-11-20&event_date=current_and_coming')).toEqual([running, endsNow]);
    t.clock.set('2026-11-21T00:00:00.000Z');
    try {
      expect(await ids('event_date=current_and_coming')).toEqual([coming]);
    } finally {
      t.clock.set('2026-11-20T10:00:00.000Z');
    }
    expect((await t.call('GET', '/events?date=2026-13-01')).status).toBe(400);
    expect((await t.call('GET', '/events?event_date=past')).status).toBe(400);
  });

  it('answers a dated list as the clock stands, page by page and by cursor, while the clock moves across ends and events are written', async () => {
    const owner = await t.member();
    const mk = async (name: string, start: string, end: string) =>
      (await create({ name, start_date: start, end_date: end }, owner)).body as { id: string; start_date: string; end_date: string };
    // Ends at distinct moments and at the same moment, some events long (the longest bounds the window's start).
    const made = [
      await mk('A', '2026-11-20T08:00:00Z', '2026-11-20T10:30:00Z'),
      await mk('B', '2026-11-20T09:00:00Z', '2026-11-20T10:30:00Z'),
      await mk('C', '2026-11-19T09:00:00Z', '2026-11-20T11:00:00Z'),
      await mk('D', '2026-11-20T10:00:00Z', '2026-11-20T10:45:00Z'),
      await mk('E', '2026-11-20T12:00:00Z', '2026-11-20T13:00:00Z'),
      await mk('F', '2026-11-21T12:00:00Z', '2026-11-21T13:00:00Z'),
      await mk('G', '2026-11-20T09:30:00Z', '2026-11-20T10:30:00.001Z'),
    ];
    const events = [...made];
    type Page = { status: number; body: { items: { id: string }[]; total_items: number }; headers: Record<string, unknown> };
    const get = (query: string) => t.call('GET', `/events?${query}`) as Promise<Page>;
    const expected = (now: string) =>
      events
        .filter((e) => e.end_date >= now)
        .sort((a, b) => (a.start_date < b.start_date ? -1 : a.start_date > b.start_date ? 1 : a.id < b.id ? -1 : 1))
        .map((e) => e.id);
    const check = async (now: string) => {
      t.clock.set(now);
      const want = expected(now);
      for (const base of [`owner=${owner.user.id}&event_date=current_and_coming`, `owner=${owner.user.id}&date=2026-11-20&event_date=current_and_coming`]) {
        const dayWant = base.includes('date=2026-11-20') ? want.filter((id) => events.find((e) => e.id === id)!.start_date < '2026-11-21') : want;
        // Every page by number (twice: the second time from what the first remembered), then by cursor.
        for (let round = 0; round < 2; round++)
          for (let page = 1; page <= 4; page++) {
            const res = await get(`${base}&per_page=2&page=${page}`);
            expect(res.status).toBe(200);
            expect(res.body.items.map((e) => e.id), `${now} ${base} page ${page}`).toEqual(dayWant.slice((page - 1) * 2, page * 2));
            expect(res.body.total_items).toBe(dayWant.length);
          }
        const walked: string[] = [];
        let url: string | undefined = `/events?${base}&per_page=2`;
        while (url) {
          const res = (await t.call('GET', url)) as Page;
          walked.push(...res.body.items.map((e) => e.id));
          const link = res.headers.link as string | undefined;
          url = link ? /<\/public-api\/v1([^>]+)>/.exec(link)![1] : undefined;
        }
        expect(walked, `${now} ${base} by cursor`).toEqual(dayWant);
      }
    };
    try {
      for (const now of [
        '2026-11-20T10:00:00.000Z',
        '2026-11-20T10:29:59.999Z',
        '2026-11-20T10:30:00.000Z',
        '2026-11-20T10:30:00.001Z',
        '2026-11-20T10:30:00.002Z',
        '2026-11-20T10:44:00.000Z',
        '2026-11-20T10:10:00.000Z', // the clock set back
        '2026-11-20T11:00:00.000Z',
        '2026-11-20T11:00:00.001Z',
        '2026-11-22T00:00:00.000Z', // after every end
        '2026-11-22T00:00:01.000Z',
      ])
        await check(now);
      // A new event ending inside a window already asked: the list answers it at once.
      t.clock.set('2026-11-20T10:31:00.000Z');
      await check('2026-11-20T10:31:00.000Z');
      events.push(await mk('H', '2026-11-20T10:00:00Z', '2026-11-20T10:40:00Z'));
      await check('2026-11-20T10:31:00.000Z');
      // And one ending after the window's first end (which it leaves as it was): in the list and its total.
      events.push(await mk('I', '2026-11-20T10:05:00Z', '2026-11-20T12:30:00Z'));
      await check('2026-11-20T10:31:00.000Z');
      await check('2026-11-20T10:39:59.999Z');
      await check('2026-11-20T10:40:00.001Z');
    } finally {
      t.clock.set('2026-11-20T10:00:00.000Z');
    }
  });

  it('hides events of a secret page from those outside it', async () => {
    const config = await t.call('POST', '/page_configurations', { body: { name: 'Hidden' } });
    const owner = await t.member();
    const secret = (
      await t.call('POST', '/pages', {
        as: owner.creds,
        body: { name: 'Vault', privacy: 'secret', page_configuration_id: config.body.id, user_id: owner.user.id },
      })
    ).body;
    const event = (await create({ name: 'Hidden meeting', page_id: secret.id, start_date: '2026-12-01T10:00:00Z', end_date: '2026-12-01T11:00:00Z' }, owner)).body;
    const outsider = await t.member();
    expect((await t.call('GET', `/events/${event.id}`, { as: outsider.creds })).status).toBe(404);
    expect((await t.call('GET', `/events?owner=${owner.user.id}`, { as: outsider.creds })).body).toEqual({ items: [], total_items: 0 });
    expect((await t.call('GET', `/events?owner=${owner.user.id}`, { as: owner.creds })).body.total_items).toBe(1);
    expect((await t.call('GET', `/events/${event.id}`)).status).toBe(200);
    expect((await t.call('GET', `/events/${event.id}`, { as: owner.creds })).status).toBe(200);
    expect((await t.call('GET', `/events/${event.id}/attendees`, { as: outsider.creds })).status).toBe(404);
    expect((await t.call('GET', `/events/${event.id}/attendees`, { as: owner.creds })).status).toBe(200);
    expect((await answer(event.id, outsider, 'yes')).status).toBe(404);
  });
});
