/**
 * Every error the API can answer, as `{error: {code, message, fields?}}`. The codes are part of the
 * interface: clients branch on them, so they only ever grow.
 */
export const ErrorCode = {
  invalidBody: 'invalid_body',
  invalidQuery: 'invalid_query',
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
    // An answer to the client, not a failure of ours: no stack is captured (walking the frames cost a refused
    // follow about 10 µs of its 300). A failure of ours is an Error of its own, with its stack.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
  }

  /** The contract's error body; the server adds the id of the request it answers. */
  toBody(requestId?: string): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.fields && this.status === 422 ? { fields: this.fields } : {}),
        ...(requestId ? { request_id: requestId } : {}),
      },
    };
  }
}

export const notFound = (what: string): AppError => new AppError(404, ErrorCode.notFound, `${what} not found`);

export const forbidden = (message: string, code: string = ErrorCode.forbidden): AppError =>
  new AppError(403, code, message);

export const conflict = (code: string, message: string): AppError => new AppError(409, code, message);

export const invalidFields = (fields: FieldError[], message?: string): AppError =>
  new AppError(
    422,
    ErrorCode.validationFailed,
    message ?? fields.map((f) => `${f.field}: ${f.message}`).join('; '),
    fields,
  );

/** 429 with `Retry-After` (whole seconds, at least 1). */
export const rateLimited = (message: string, retryAfterSeconds: number): AppError =>
  new AppError(429, ErrorCode.rateLimited, message, undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

export const invalidField = (field: string, message: string): AppError => invalidFields([{ field, message }]);
