import type { FastifyError, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../shared/errors.js';
import { lostRace, TRANSACTION_ATTEMPTS } from '../store/retried.js';

/** A request that failed: the contract's error it is answered with (`toAppError`), and its line in the log. */

const CODE_BY_STATUS: Record<number, string> = {
  400: ErrorCode.invalidBody,
  401: ErrorCode.unauthorized,
  403: ErrorCode.forbidden,
  404: ErrorCode.notFound,
  405: ErrorCode.methodNotAllowed,
  406: ErrorCode.unsupportedMediaType,
  409: ErrorCode.conflict,
  411: ErrorCode.lengthRequired,
  413: ErrorCode.payloadTooLarge,
  414: ErrorCode.uriTooLong,
  415: ErrorCode.unsupportedMediaType,
  422: ErrorCode.validationFailed,
  429: ErrorCode.rateLimited,
};

/**
 * A failed request in the log. A 503 `server_busy` is the server protecting itself (a transaction that lost its race
 * on every attempt, streams at their limit, a shutdown), not a fault: a warning, one line naming the route and what
 * was busy (PostgreSQL's word on the race, or the answer's message), no stack. Any other 5xx is an error with its
 * cause and stack. The request id is on every line of the request's logger (`reqId`).
 */
export function logFailure(request: FastifyRequest, thrown: unknown, appError: AppError): void {
  if (appError.code === ErrorCode.serverBusy) {
    const race = lostRace(thrown) ? (thrown as { code: string; message: string; detail?: string }) : undefined;
    const busy = race ? `${race.message} (${race.code}) on each of ${TRANSACTION_ATTEMPTS} attempts` : appError.message;
    // The route in the message itself: a terminal's readable log line (`serve` on a TTY) shows only the message.
    const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
    request.log.warn({ sqlstate: race?.code, detail: race?.detail }, `server busy on ${route}: ${busy}`);
  } else if (appError.status >= 500) request.log.error({ err: thrown }, 'request failed');
}

/** Maps whatever was thrown to the contract's error shape; a 500 never shows internals. */
export function toAppError(error: FastifyError, bodyLimit: number): AppError {
  if (error instanceof AppError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError(413, ErrorCode.payloadTooLarge, `The request body is larger than the limit of ${bodyLimit} bytes`);
    case 'FST_ERR_BAD_URL':
      return new AppError(400, ErrorCode.malformedRequest, 'The URL is malformed');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        415,
        ErrorCode.unsupportedMediaType,
        'Unsupported Content-Type: send application/json, application/x-www-form-urlencoded or multipart/form-data',
      );
  }
  // PostgreSQL's deadlock or serialization failure, still there after the transaction's last attempt: a clash of
  // writes to the same rows, over once they are done, not the client's mistake nor a fault to hide behind a 500.
  if (lostRace(error))
    return new AppError(503, ErrorCode.serverBusy, 'Other changes to the same records got in the way: retry', undefined, { 'retry-after': '1' });
  const status = error.statusCode ?? 500;
  if (status === 413) return new AppError(413, ErrorCode.payloadTooLarge, error.message);
  if (status === 414) return new AppError(414, ErrorCode.uriTooLong, 'A part of the URL path is longer than 1024 characters');
  if (status >= 400 && status < 500) {
    const message = error instanceof SyntaxError ? `The request body is not valid JSON: ${error.message}` : error.message;
    return new AppError(status, CODE_BY_STATUS[status] ?? ErrorCode.invalidBody, message);
  }
  return new AppError(500, ErrorCode.internal, 'Something went wrong on our side; the error has been logged');
}
