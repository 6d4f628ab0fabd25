import { z } from 'zod';
import { ErrorCode, type ErrorCodeValue } from '../errors.js';
import { EXAMPLE_ID } from './examples.js';

const ERROR_CODES = Object.values(ErrorCode) as [ErrorCodeValue, ...ErrorCodeValue[]];

export const FieldErrorSchema = z
  .object({ field: z.string().describe('The field, as a dotted path (permissions.users.index)'), message: z.string() })
  .meta({ id: 'FieldError' });

/** Every error answer: `{error: {code, message, fields?, request_id}}` (src/shared/errors.ts). */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).describe('What went wrong, for programs to branch on; the list only grows'),
      message: z.string().describe('A sentence for people'),
      fields: z.array(FieldErrorSchema).optional().describe('The invalid fields (422 validation_failed only), at most 20'),
      request_id: z.string().describe('The X-Request-Id of this answer, also named in the server log'),
    }),
  })
  .meta({ id: 'Error', examples: [errorExample('not_found', 'Page not found')] });

/** An error body as the server writes it, for the document's examples. */
export function errorExample(code: ErrorCodeValue, message: string, fields?: { field: string; message: string }[]) {
  return { error: { code, message, ...(fields ? { fields } : {}), request_id: EXAMPLE_ID.request_id } };
}
