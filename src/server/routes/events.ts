import { ErrorCode } from '../../shared/errors.js';
import { z } from 'zod';
import { answerEvent, createEvent, getEvent, listAttendees, listEvents } from '../../domain/events.js';
import {
  AttendanceInput,
  AttendanceListSchema,
  AttendanceResultSchema,
  CreateEventInput,
  EventListSchema,
  EventSchema,
  ListAttendeesQuery,
  ListEventsQuery,
} from '../../shared/schemas/events.js';
import type { RouteContext } from '../context.js';

const EventParams = z.object({ event_id: z.string() });

export function registerEventRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Gathering events';
  routes.add(
    { method: 'POST', url: '/events', operationId: 'create_event', tag, summary: 'Create a gathering event', body: CreateEventInput, response: EventSchema },
    ({ body, caller }) => createEvent(deps, caller, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/events',
      operationId: 'list_events',
      tag,
      summary: 'List events, soonest first (owner, date=YYYY-MM-DD, event_date=current_and_coming)',
      query: ListEventsQuery,
      response: EventListSchema,
    },
    ({ query, caller }) => listEvents(deps, caller, query),
  );
  routes.add(
    { method: 'GET', url: '/events/:event_id', operationId: 'get_event', tag, summary: 'Get an event', params: EventParams, response: EventSchema },
    ({ params, caller }) => getEvent(deps, caller, params.event_id),
  );
  routes.add(
    {
      method: 'PUT',
      url: '/events/:event_id/attendance',
      operationId: 'set_event_attendance',
      conflicts: [ErrorCode.eventFull, ErrorCode.eventEnded],
      tag,
      summary: 'Answer an event: yes (takes a place; 409 event_full), no or maybe; in a private or secret page, its members only (one who left may answer no)',
      params: EventParams,
      body: AttendanceInput,
      response: AttendanceResultSchema,
    },
    ({ params, body, caller }) => answerEvent(deps, caller, params.event_id, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/events/:event_id/attendees',
      operationId: 'list_event_attendees',
      tag,
      summary: 'Who answered the event, and what',
      params: EventParams,
      query: ListAttendeesQuery,
      response: AttendanceListSchema,
    },
    ({ params, query, caller }) => listAttendees(deps, caller, params.event_id, query),
  );
}
