import { describe, expect, it } from 'vitest';
import { startApp } from '../helpers/app.js';

/**
 * A 500 says "the error has been logged": it is, with or without `--log` (which adds a line for every request), as
 * one JSON line on the log stream naming the request id the client was given.
 */
describe('the error log', () => {
  for (const everyRequest of [false, true])
    it(`holds each 500's cause and request id${everyRequest ? ' beside every request' : ', and nothing else, without --log'}`, async () => {
      const lines: Record<string, any>[] = [];
      const t = await startApp({
        logger: everyRequest,
        logStream: { write: (line) => void lines.push(JSON.parse(line)) },
        beforeReady: (app) =>
          app.get('/public-api/v1/broken', () => {
            throw new Error('the disk is on fire');
          }),
      });
      try {
        expect((await t.call('GET', '/pages?per_page=1')).status).toBe(200);
        const res = await t.call('GET', '/broken', { headers: { 'x-request-id': 'trace-me-1' } });
        expect(res.status).toBe(500);
        expect(res.body.error).toEqual({ code: 'internal_error', message: expect.stringContaining('has been logged'), request_id: 'trace-me-1' });
        const errors = lines.filter((line) => line.level >= 50);
        expect(errors).toEqual([expect.objectContaining({ reqId: 'trace-me-1', msg: 'request failed', err: expect.objectContaining({ message: 'the disk is on fire' }) })]);
        expect(errors[0]!.err.stack).toContain('error-log.test.ts');
        // Every request is a line of its own with --log; without, the errors are all there is.
        expect(lines.some((line) => line.level < 50)).toBe(everyRequest);
      } finally {
        await t.close();
      }
    });
});
