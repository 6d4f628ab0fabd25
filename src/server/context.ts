import type { Authenticator } from '../domain/authenticator.js';
import type { Deps } from '../domain/context.js';
import type { LiveStreams } from './live-streams.js';
import type { RouteRegistry } from './route.js';

/** Where every route of the API lives. */
export const API_PREFIX = '/public-api/v1';

/** What `createApp` hands each resource's routes: a leaf module, so that routes never import the app. */
export interface RouteContext {
  routes: RouteRegistry;
  deps: Deps;
  authenticator: Authenticator;
  live: LiveStreams;
}
