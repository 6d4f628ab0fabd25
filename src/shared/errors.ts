/**
 * Every error the API can answer, as `{error: {code, message, fields?}}`. The codes are part of the
 * interface: clients branch on them, so they only ever grow.
 */
export const ErrorCode = {
  invalidBody: 'invalid_body',
  invalidQuery: 'invalid_query',
  invalidHeader: 'invalid_header',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  apiAccessDenied: 'api_access_denied',
  accessRequestRequired: 'access_request_required',
  notFound: 'not_found',
  routeNotFound: 'route_not_found',
  methodNotAllowed: 'method_not_allowed',
  conflict: 'conflict',
  emailTaken: 'email_taken',
  nicknameTaken: 'nickname_taken',
  alreadyFollowing: 'already_following',
  alreadyMember: 'already_member',
  accessRequestPending: 'access_request_pending',
  alreadyAccepted: 'already_accepted',
  alreadyRefused: 'already_refused',
  alreadyLiked: 'already_liked',
  eventFull: 'event_full',
  eventEnded: 'event_ended',
  accountSuspended: 'account_suspended',
  userSuspended: 'user_suspended',
  alreadyReported: 'already_reported',
  lastAdmin: 'last_admin',
  cannotSuspendSelf: 'cannot_suspend_self',
  permissionSetInUse: 'permission_set_in_use',
  defaultPermissionSet: 'default_permission_set',
  payloadTooLarge: 'payload_too_large',
  lengthRequired: 'length_required',
  tooManyParts: 'too_many_parts',
  uriTooLong: 'uri_too_long',
  headersTooLarge: 'headers_too_large',
  malformedRequest: 'malformed_request',
  requestTimeout: 'request_timeout',
  unsupportedMediaType: 'unsupported_media_type',
  unsupportedEncoding: 'unsupported_encoding',
  validationFailed: 'validation_failed',
  idempotencyKeyReused: 'idempotency_key_reused',
  idempotencyKeyInUse: 'idempotency_key_in_use',
  rateLimited: 'rate_limited',
  tooManyStreams: 'too_many_streams',
  tooManyConnections: 'too_many_connections',
  serverBusy: 'server_busy',
  internal: 'internal_error',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: FieldError[]; request_id?: string };
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: FieldError[],
    /** Response headers that go with the error (`Retry-After` on a 429, `Allow` on a 405). */
    readonly headers?: Record<string, string>,
  ) {
    // An answer to the client, not a failure of ours: no stack is captured (walking the frames costs). A failure
    // of ours is an Error of its own, with its stack.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
  }

  /**
   * The contract's error body; the server adds the id of the request it answers. Never larger than
   * MAX_ERROR_BYTES as JSON, whatever the client sent to be named in it (a field name may be 900 KB long).
   */
  toBody(requestId?: string): ErrorBody {
    const build = (message: string, fields: FieldError[] | undefined): ErrorBody => ({
      error: {
        code: this.code,
        message,
        ...(fields && this.status === 422 ? { fields } : {}),
        ...(requestId ? { request_id: requestId } : {}),
      },
    });
    const body = build(this.message, this.fields);
    if (jsonBytes(body) <= MAX_ERROR_BYTES) return body;
    const message = clip(this.message, 1000, 60);
    let fields = this.fields?.map((f) => ({ field: clip(f.field, 200), message: clip(f.message, 200) }));
    // Each character may take 6 bytes escaped (\u0000): drop fields from the end until it fits.
    while (fields?.length && jsonBytes(build(message, fields)) > MAX_ERROR_BYTES) fields = fields.slice(0, -1);
    return build(message, fields?.length ? fields : undefined);
  }
}

/** No error reply is larger than this (docs/security.md), and a 422 names at most MAX_FIELDS_NAMED fields. */
export const MAX_ERROR_BYTES = 16 * 1024;
export const MAX_FIELDS_NAMED = 20;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * A text cut to `max` characters, an ellipsis where it was cut, never inside a surrogate pair; `keepEnd`
 * characters of its end are kept (a message's last words say how many more fields there are).
 */
export function clip(text: string, max: number, keepEnd = 0): string {
  if (text.length <= max) return text;
  let end = max - 1 - keepEnd;
  if (/[\ud800-\udbff]/.test(text[end - 1] ?? '')) end -= 1;
  let from = text.length - keepEnd;
  if (/[\udc00-\udfff]/.test(text[from] ?? '')) from += 1;
  return `${text.slice(0, end)}…${keepEnd ? text.slice(from) : ''}`;
}

export const notFound = (what: string): AppError => new AppError(404, ErrorCode.notFound, `${what} not found`);

export const forbidden = (message: string, code: string = ErrorCode.forbidden): AppError =>
  new AppError(403, code, message);

export const conflict = (code: string, message: string): AppError => new AppError(409, code, message);

/** 422 naming at most MAX_FIELDS_NAMED of the fields (names and messages clipped), its message saying how many more. */
export const invalidFields = (fields: FieldError[], message?: string): AppError => {
  const named = fields.slice(0, MAX_FIELDS_NAMED).map((f) => ({ field: clip(f.field, 200), message: clip(f.message, 300) }));
  const more = fields.length - named.length;
  const text =
    message ??
    named.map((f) => `${f.field}: ${f.message}`).join('; ') +
      (more ? `; and ${more.toLocaleString('en-US')} more field${more === 1 ? '' : 's'}` : '');
  return new AppError(422, ErrorCode.validationFailed, text, named);
};

/** 429 with `Retry-After` (whole seconds, at least 1). */
export const rateLimited = (message: string, retryAfterSeconds: number): AppError =>
  new AppError(429, ErrorCode.rateLimited, message, undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

export const invalidField = (field: string, message: string): AppError => invalidFields([{ field, message }]);
