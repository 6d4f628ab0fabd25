import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';

export function registerOpenApiCommand(program: Command): void {
  program
    .command('openapi')
    .description("print the server's OpenAPI 3.1 document (needs no credentials)")
    .action(async (_options: unknown, command: Command) => {
      const [{ resolveTarget }, { ApiClient }, { Output }] = await Promise.all([
        import('../context.js'),
        import('../../client/api-client.js'),
        import('../output.js'),
      ]);
      const target = await resolveTarget(command.optsWithGlobals() as GlobalOptions);
      // The document is open: no key is sent, so a stale profile cannot make it fail.
      const document = await new ApiClient({ baseUrl: target.url }).get<unknown>('/openapi.json');
      new Output({ json: true }).printJson(document);
    });
}
