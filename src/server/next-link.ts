import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * `Link: <…>; rel="next"` (RFC 8288) when more records follow: the same URL with the opaque cursor in
 * place of `page`, relative to the server.
 */
export function linkNext(request: FastifyRequest, reply: FastifyReply, cursor: string | undefined): void {
  if (cursor === undefined) return;
  const url = new URL(request.url, 'http://agora.invalid');
  url.searchParams.delete('page');
  url.searchParams.set('cursor', cursor);
  reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
}
