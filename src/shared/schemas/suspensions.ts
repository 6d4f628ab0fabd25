import { z } from 'zod';
import { Id, IsoDateOrTime, text, Timestamp } from './common.js';

export const MAX_SUSPENSION_REASON = 1000;

/** A user's suspension: over by itself once `until` is past (null: until lifted). */
export const SuspensionSchema = z.object({
  reason: z.string(),
  until: Timestamp.nullable().describe('When it ends by itself; null: until lifted'),
  created_at: Timestamp,
  created_by: Id,
}).meta({ id: 'Suspension' });
export type Suspension = z.infer<typeof SuspensionSchema>;

export const SuspendUserInput = z.object({
  reason: text(MAX_SUSPENSION_REASON),
  until: z.preprocess((v) => (v === null || v === '' ? undefined : v), IsoDateOrTime.optional()),
}).meta({ id: 'SuspendUserInput', examples: [{ reason: 'Spam after two warnings', until: '2026-12-31T00:00:00.000Z' }] });
export type SuspendUserInput = z.output<typeof SuspendUserInput>;
