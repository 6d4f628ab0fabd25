import { ErrorCode, type ErrorCodeValue } from '../../shared/errors.js';
import { errorExample } from '../../shared/schemas/errors.js';
import { EXAMPLE_ID } from '../../shared/schemas/examples.js';

/** The groups of operations, in the order a reader meets them. */
export const TAGS: Record<string, string> = {
  Users: 'People of the community: created with their consents, listed, exported; each has a role',
  Pages: 'Pages gather users and content around a topic; public, private (content for members) or secret (invisible to others)',
  'Page configurations': 'The kinds of page a community offers; every page names one',
  Follows: 'Subscriptions to a page or a user: following a page is being in it',
  'Page access requests': 'Asking to join a private page; its administrators accept or refuse',
  Invites: "Page administrators and members invite users into a page; the page's administrators accept or refuse",
  Content: 'Statuses, comments and likes, and the stream of what a user follows',
  'Gathering events': 'Events with dates, an optional limit of places, tickets, and answers yes, no or maybe',
  Notifications: 'What the service tells each user: listed, streamed live (Server-Sent Events), marked seen',
  Permissions: 'What a user may do: per category, each action granted or not',
  Roles: "Permission sets (Admins, Members, Visitors and the community's own) and users' roles",
  Moderation: 'The moderation queue and the audit log of administrative acts',
  Webhooks: 'Signed HTTP callbacks on access requests, invites and reports, kept and retried until delivered',
  'API keys': 'The key pairs that sign requests (issued offline with agora admin create-key)',
  Meta: 'This document',
};

const json = (schemaRef: string, example: unknown) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${schemaRef}` }, example },
});

const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };

/** An error answer, its body an Error whose example has this code. */
function errorResponse(
  description: string,
  code: ErrorCodeValue,
  message: string,
  extra: { headers?: Record<string, unknown>; fields?: { field: string; message: string }[] } = {},
) {
  return { description, headers: { ...REQUEST_ID_HEADER, ...extra.headers }, content: json('Error', errorExample(code, message, extra.fields)) };
}

/** The error answers every operation may give, by status: referenced from the operations that can give them. */
export const ERROR_RESPONSES = {
  400: [
    'BadRequest',
    errorResponse(
      'The query, a path parameter, a header or the body cannot be read (invalid_query, invalid_header, invalid_body, malformed_request)',
      ErrorCode.invalidQuery,
      'per_page must be an integer between 1 and 100',
    ),
  ],
  401: ['Unauthorized', errorResponse('Api-Key and Api-Secret are missing or wrong (unauthorized)', ErrorCode.unauthorized, 'Invalid API key or secret')],
  403: [
    'Forbidden',
    errorResponse(
      "The caller may not do this: acting for another user, another user's notifications, a page they do not administer, a suspended account (forbidden, api_access_denied, access_request_required, account_suspended)",
      ErrorCode.forbidden,
      'You may act only for yourself: user_id must be your own id',
    ),
  ],
  404: ['NotFound', errorResponse('No such record, or one hidden from the caller (a secret page): not_found', ErrorCode.notFound, 'Page not found')],
  413: [
    'PayloadTooLarge',
    errorResponse('The body is larger than the server accepts (payload_too_large, too_many_parts)', ErrorCode.payloadTooLarge, 'The request body is larger than the limit of 1048576 bytes'),
  ],
  415: [
    'UnsupportedMediaType',
    errorResponse(
      'The body is not JSON, urlencoded or multipart, or it is compressed (unsupported_media_type, unsupported_encoding)',
      ErrorCode.unsupportedMediaType,
      'Unsupported Content-Type: send application/json, application/x-www-form-urlencoded or multipart/form-data',
    ),
  ],
  422: [
    'ValidationFailed',
    errorResponse(
      'Fields are invalid or unknown (validation_failed, with fields); or an Idempotency-Key was reused with another body (idempotency_key_reused)',
      ErrorCode.validationFailed,
      'name: is required',
      { fields: [{ field: 'name', message: 'is required' }] },
    ),
  ],
  429: [
    'TooManyRequests',
    errorResponse(
      'Too many requests for this key, or too many failed authentications from this address (rate_limited); or the caller holds the most connections allowed (too_many_connections): wait Retry-After seconds',
      ErrorCode.rateLimited,
      'Too many requests for this API key (at most 5000 a second, bursts of 10000): retry in 1 s',
      {
        headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
      },
    ),
  ],
} as const;

/** Any other error: 405, 408, 411, 414, 431, 500, 503 (shutting down; Retry-After). */
export const OTHER_ERRORS = [
  'OtherError',
  errorResponse(
    'Another error: method not allowed, request timeout, length required, URI or headers too large, a failure of ours, or the server busy or shutting down (server_busy, with Retry-After)',
    ErrorCode.internal,
    'Something went wrong on our side; the error has been logged',
    { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } },
  ),
] as const;

/** A 409 naming the conflicts this operation can meet. */
export function conflictResponse(codes: ErrorCodeValue[]) {
  return {
    description: `The request conflicts with what exists: ${codes.join(', ')}`,
    headers: REQUEST_ID_HEADER,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(codes.map((code) => [code, { value: errorExample(code, CONFLICT_MESSAGES[code] ?? 'This conflicts with what exists') }])),
      },
    },
  };
}

const CONFLICT_MESSAGES: Partial<Record<ErrorCodeValue, string>> = {
  email_taken: 'A user already exist with that email',
  nickname_taken: 'A user already exist with that nickname',
  already_following: 'This user already follows this page',
  already_member: 'This user is already in this page',
  access_request_pending: 'An access request from this user to this page is already waiting',
  already_accepted: 'This access request was already accepted',
  already_refused: 'This invite was already refused',
  already_liked: 'This user already likes this status',
  event_full: 'This event is full: no place is left',
  event_ended: 'This event has ended: it takes no more answers',
  permission_set_in_use: 'Users still have this role',
  default_permission_set: 'The default roles cannot be deleted',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still being processed: try again shortly',
  already_reported: 'You already have an open report on this',
  user_suspended: 'This user is suspended',
  cannot_suspend_self: 'You cannot suspend yourself',
  last_admin: 'This user is the last administrator who is not suspended: make another user an administrator (or lift a suspension) first',
  conflict: 'This conflicts with what exists',
};

export const HEADERS = {
  'X-Request-Id': {
    description: "The request's id (the client's own X-Request-Id when it sent a sane one), also in error bodies and the server log",
    schema: { type: 'string' },
    example: EXAMPLE_ID.request_id,
  },
  Link: {
    description: 'RFC 8288: when more records follow, <URL>; rel="next", the URL carrying a cursor; follow it as it is to walk the whole list',
    schema: { type: 'string' },
    example: '</public-api/v1/pages?per_page=25&cursor=WyIwMWEyMTU3M2VmYTg1NTJiYzgwZmI2MTg5OTRmMzExNCJd>; rel="next"',
  },
  'X-Total-Count': { description: 'How many records the whole list holds', schema: { type: 'integer', minimum: 0 }, example: 42 },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 }, example: 2 },
  'Idempotent-Replayed': {
    description: 'true when this is the first answer to the same Idempotency-Key and body, sent again without acting',
    schema: { type: 'string', enum: ['true'] },
  },
  'Suspension-Lifted': {
    description: 'true when this request ended a suspension in force; false when there was none to lift (never suspended, lifted already, or over by itself)',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
};

export const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key (per caller) with the same body within 24 h answers the first response again without acting; with another body, 422 idempotency_key_reused. Only a success is kept: an error answer gives the key back, so a retry acts',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: 'import-2026-11-20-row-17',
  },
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'An id of your own for this request, sent back and logged (else the server makes one)',
    schema: { type: 'string', maxLength: 128 },
  },
  LastEventId: {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description: 'Resume after this notification, with nothing lost (browsers send it when they reconnect)',
    schema: { type: 'string' },
    example: EXAMPLE_ID.notification,
  },
};
