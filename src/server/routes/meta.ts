import { API_PREFIX, type RouteContext } from '../context.js';
import { buildOpenApi } from '../openapi/document.js';

import { VERSION } from '../../shared/version.js';

export function registerMetaRoutes({ routes }: RouteContext): void {
  // Built and serialized once: the routes do not change while the server runs.
  let document: string | undefined;
  routes.add(
    { method: 'GET', url: '/openapi.json', operationId: 'get_openapi_document', tag: 'Meta', summary: 'This OpenAPI 3.1 document', open: true, status: 200 },
    async ({ reply }) => {
      reply.type('application/json; charset=utf-8');
      return (document ??= JSON.stringify(buildOpenApi(routes.specs, API_PREFIX, VERSION)));
    },
  );
}
