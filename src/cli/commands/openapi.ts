import type { Command } from 'commander';
import { examples } from '../command-kit.js';
import type { GlobalOptions } from '../context.js';

export function registerOpenApiCommand(program: Command): void {
  examples(
    program.command('openapi').description("print the server's OpenAPI 3.1 document (needs no credentials)"),
    'agora openapi > openapi.json',
    'agora openapi --url https://agora.example.org | jq .info.version',
  ).action(async (_options: unknown, command: Command) => {
      const [{ resolveTarget, clientFor }, { Output }] = await Promise.all([import('../context.js'), import('../output.js')]);
      const globals = command.optsWithGlobals() as GlobalOptions;
      const target = await resolveTarget(globals);
      // The document is open: no key is sent, so a stale profile cannot make it fail.
      const client = clientFor(globals, { url: target.url });
      const document = await client.get<unknown>('/openapi.json').finally(() => client.close());
      new Output({ json: true }).printJson(document);
    });
}
