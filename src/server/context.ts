import type { FastifyRequest } from 'fastify';
import type { Caller } from '../domain/context.js';
import type { Deps } from '../domain/context.js';
import type { LiveStreams } from './live-streams.js';
import type { RouteRegistry } from './route.js';

/** Where every route of the API lives. */
export const API_PREFIX = '/public-api/v1';

/** What `createApp` hands each resource's routes: a leaf module, so that routes never import the app. */
export interface RouteContext {
  routes: RouteRegistry;
  deps: Deps;
  /**
   * The caller of a request's credentials, authenticated again and checked as at the request's start (a live stream,
   * before each delivery and at each keep-alive); a refusal now is not counted as a failed authentication.
   */
  reauthenticate(request: FastifyRequest): Promise<Caller>;
  live: LiveStreams;
}
