import { z } from 'zod';
import { FOUR_DIGIT_YEAR, fourDigitUtcYear, Id, sameCalendarDay, text, Timestamp } from './common.js';

export const MAX_SUSPENSION_REASON = 1000;

/** A user's suspension: over by itself once `until` is past (null: until lifted). */
export const SuspensionSchema = z.object({
  reason: z.string(),
  until: Timestamp.nullable().describe('When it ends by itself; null: until lifted'),
  created_at: Timestamp,
  created_by: Id,
}).meta({ id: 'Suspension' });
export type Suspension = z.infer<typeof SuspensionSchema>;

/** An ISO 8601 time with its offset (or a date, midnight UTC), normalised to UTC. */
const isoTime = z
  .string()
  .trim()
  // `abort`: a text that is no date at all is told so once, not also that it is no real date.
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/, {
    message: 'must be an ISO 8601 date (2026-12-31: its midnight UTC) or a time with its offset (2026-12-31T18:00:00Z)',
    abort: true,
  })
  .refine((v) => !Number.isNaN(Date.parse(v)) && sameCalendarDay(v), { message: 'is not a real date', abort: true })
  .refine(fourDigitUtcYear, FOUR_DIGIT_YEAR)
  .transform((v) => new Date(v).toISOString());

export const SuspendUserInput = z.object({
  reason: text(MAX_SUSPENSION_REASON),
  until: z.preprocess((v) => (v === null || v === '' ? undefined : v), isoTime.optional()),
}).meta({ id: 'SuspendUserInput', examples: [{ reason: 'Spam after two warnings', until: '2026-12-31T00:00:00.000Z' }] });
export type SuspendUserInput = z.output<typeof SuspendUserInput>;
