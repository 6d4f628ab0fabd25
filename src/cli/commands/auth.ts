import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';

interface LoginOptions {
  apiKey?: string;
  apiSecret?: string;
}

export function registerAuthCommands(program: Command): void {
  program
    .command('login')
    .description('store a profile (URL, key, secret) after checking it against the server')
    .option('--api-key <key>', 'API key (asked on a TTY when missing)')
    .option('--api-secret <secret>', 'API secret (asked on a TTY when missing)')
    .action(async (options: LoginOptions, command: Command) => {
      const globals = command.optsWithGlobals() as GlobalOptions;
      const [creds, { UsageError }, { DEFAULT_URL, clientFor }, { Output }] = await Promise.all([
        import('../credentials.js'),
        import('../errors.js'),
        import('../context.js'),
        import('../output.js'),
      ]);
      const interactive = !!process.stdin.isTTY && !!process.stdout.isTTY;
      let url = globals.url ?? process.env.AGORA_URL;
      let { apiKey, apiSecret } = options;
      if (interactive && (!url || !apiKey || !apiSecret)) {
        const { input, password } = await import('@inquirer/prompts');
        url ??= await input({ message: 'Server URL', default: DEFAULT_URL });
        apiKey ??= await input({ message: 'API key', validate: (v) => v.trim().length > 0 || 'required' });
        apiSecret ??= await password({ message: 'API secret', mask: '*' });
      }
      url ??= DEFAULT_URL;
      if (!apiKey || !apiSecret) throw new UsageError('login needs --api-key and --api-secret when not run on a terminal');
      const client = clientFor(globals, { url, apiKey, apiSecret });
      const me = await client.get<{ id: string; nickname: string }>('/me').finally(() => client.close());
      const profile = globals.profile ?? process.env.AGORA_PROFILE ?? 'default';
      const file = await creds.readCredentials();
      file.profiles[profile] = { url: client.baseUrl, api_key: apiKey, api_secret: apiSecret };
      file.current = profile;
      await creds.writeCredentials(file);
      const out = new Output({ json: !!globals.json });
      if (out.json) out.printJson({ profile, url: client.baseUrl, user: me });
      else out.done(`Logged in to ${client.baseUrl} as ${me.nickname} (${me.id}); profile "${profile}" saved`);
    });

  program
    .command('logout')
    .description('forget the stored profile (the current one unless --profile)')
    .action(async (_options: unknown, command: Command) => {
      const globals = command.optsWithGlobals() as GlobalOptions;
      const [creds, { UsageError }, { Output }] = await Promise.all([
        import('../credentials.js'),
        import('../errors.js'),
        import('../output.js'),
      ]);
      const file = await creds.readCredentials();
      const profile = globals.profile ?? process.env.AGORA_PROFILE ?? file.current ?? 'default';
      if (!file.profiles[profile]) throw new UsageError(`No profile named "${profile}"`);
      delete file.profiles[profile];
      if (file.current === profile) file.current = Object.keys(file.profiles)[0];
      await creds.writeCredentials(file);
      new Output({ json: !!globals.json }).done(`Logged out: profile "${profile}" removed`);
    });

  program
    .command('profiles')
    .description('list the stored profiles (secrets are never shown)')
    .action(async (_options: unknown, command: Command) => {
      const globals = command.optsWithGlobals() as GlobalOptions;
      const [creds, { Output }] = await Promise.all([import('../credentials.js'), import('../output.js')]);
      const file = await creds.readCredentials();
      const items = Object.entries(file.profiles).map(([name, p]) => ({
        name,
        url: p.url,
        api_key: p.api_key,
        current: name === file.current,
      }));
      await new Output({ json: !!globals.json }).list({ items, total_items: items.length }, [
        { header: 'current', value: (p) => (p.current ? '*' : '') },
        { header: 'name', value: (p) => p.name },
        { header: 'url', value: (p) => p.url },
        { header: 'api_key', value: (p) => p.api_key },
      ]);
    });
}
