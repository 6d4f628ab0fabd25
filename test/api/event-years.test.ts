import { describe, expect, it } from 'vitest';
import { useApp } from '../helpers/app.js';

/**
 * Events at the edges of the calendar. One event thousands of years long carried the dated lists' bound (the
 * earliest start of an event running on the day asked: less the longest event's length) out of the calendar: on
 * SQLite the bound was NULL and `date=` found nothing for anyone; on PostgreSQL every `date=` and
 * `event_date=current_and_coming` list answered 500. The year 0000, which PostgreSQL's timestamps lack, was a 500 to
 * create there too. Own file: the long event stays in the store for the rest of it.
 */
const t = useApp();

describe('events at the edges of the calendar', () => {
  it('refuses the year 0000 (422 on create, 400 as a day to list)', async () => {
    const owner = await t.member();
    const res = await t.call('POST', '/events', {
      as: owner.creds,
      body: { user_id: owner.user.id, name: 'Year zero', start_date: '0000-06-01T00:00:00Z', end_date: '2026-11-20T12:00:00Z' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['start_date']);
    const listed = await t.call('GET', '/events?date=0000-01-01');
    expect(listed.status, JSON.stringify(listed.body)).toBe(400);
    expect(listed.body.error.code).toBe('invalid_query');
  });

  it('keeps dated lists answering after a Member creates an event from 0001 to 9999', async () => {
    const owner = await t.member();
    const mk = async (name: string, start: string, end: string) => {
      const res = await t.call('POST', '/events', { as: owner.creds, body: { user_id: owner.user.id, name, start_date: start, end_date: end } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    // The clock says 2026-11-20T10:00:00Z.
    const today = await mk('Today', '2026-11-20T09:00:00Z', '2026-11-20T18:00:00Z');
    const forever = await mk('Forever', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z');
    const ids = async (query: string) => {
      const res = await t.call('GET', `/events?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items.map((e: { id: string }) => e.id);
    };
    expect(await ids('date=2026-11-20')).toEqual([forever, today]);
    expect(await ids('event_date=current_and_coming')).toEqual([forever, today]);
    expect(await ids('date=0001-01-01')).toEqual([forever]);
    expect(await ids('date=9999-12-31')).toEqual([forever]);
    expect(await ids(`owner=${owner.user.id}&date=2026-11-20`)).toEqual([forever, today]);
  });
});
