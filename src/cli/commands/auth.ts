import type { Command } from 'commander';
import { examples, withContext } from '../command-kit.js';
import type { GlobalOptions } from '../context.js';

interface LoginOptions {
  apiKey?: string;
  apiSecret?: string;
  withToken?: boolean;
}

export function registerAuthCommands(program: Command): void {
  examples(
    program
      .command('login')
      .description('store a profile (URL, key, secret) after checking it against the server')
      .option('--api-key <key>', 'API key (asked on a TTY when missing)')
      .option('--api-secret <secret>', 'API secret (asked on a TTY when missing; visible in ps: prefer --with-token)')
      .option('--with-token', 'read the API secret from the first line of standard input'),
    'agora login --url http://127.0.0.1:4010 --api-key ak_… --api-secret as_…',
    'agora login --url agora.example.org --api-key ak_… --with-token < secret.txt',
  ).action(async (options: LoginOptions, command: Command) => {
      const globals = command.optsWithGlobals() as GlobalOptions;
      const [creds, { UsageError }, { DEFAULT_URL, clientFor }, { Output }, { normalizeUrl, serverUrlProblem }, { withoutCredentials }] = await Promise.all([
        import('../credentials.js'),
        import('../errors.js'),
        import('../context.js'),
        import('../output.js'),
        import('../server-url.js'),
        import('../../shared/url-credentials.js'),
      ]);
      const interactive = !!process.stdin.isTTY && !!process.stdout.isTTY;
      let url = globals.url ?? process.env.AGORA_URL;
      // `--url` is checked as it is parsed; AGORA_URL here, before any question.
      if (!globals.url && url && serverUrlProblem(url)) throw new UsageError(`AGORA_URL=${withoutCredentials(url)}: ${serverUrlProblem(url)}`);
      let { apiKey, apiSecret } = options;
      if (options.withToken) apiSecret = await (await import('../prompts.js')).secretFromStdin('--with-token');
      if (interactive && (!url || !apiKey || !apiSecret)) {
        const { input, password } = await import('@inquirer/prompts');
        url ??= await input({ message: 'Server URL', default: DEFAULT_URL, validate: (v) => ((problem) => (problem ? `${v}: ${problem}` : true))(serverUrlProblem(v)) });
        apiKey ??= await input({ message: 'API key', validate: (v) => v.trim().length > 0 || 'required' });
        apiSecret ??= await password({ message: 'API secret', mask: '*' });
      }
      url ??= DEFAULT_URL;
      if (!apiKey || !apiSecret) throw new UsageError('login needs --api-key and --api-secret when not run on a terminal');
      const client = clientFor(globals, { url: normalizeUrl(url), apiKey, apiSecret });
      const me = await client.get<{ id: string; nickname: string }>('/me').finally(() => client.close());
      const profile = globals.profile ?? process.env.AGORA_PROFILE ?? 'default';
      const file = await creds.readCredentials();
      const previous = file.current && file.current !== profile && file.profiles[file.current] ? file.current : undefined;
      file.profiles[profile] = { url: client.baseUrl, api_key: apiKey, api_secret: apiSecret };
      file.current = profile;
      await creds.writeCredentials(file);
      const out = new Output({ json: !!globals.json });
      if (out.json) out.printJson({ profile, url: client.shownUrl, user: me });
      else
        out.done(
          `Logged in to ${client.shownUrl} as ${me.nickname} (${me.id}); profile "${profile}" saved` +
            // The commands that follow run as this profile: said when it takes over from another one.
            (previous ? `, and now the current one (was "${previous}")` : ''),
        );
    });

  examples(program.command('whoami').description('the profile, server and user the next command would use'), 'agora whoami').action(
    withContext(async ({ client, out, names, profile: stored, keyFromEnvironment }) => {
      // The key of the environment is no profile's: naming the stored one would send a reader to the wrong place.
      const profile = keyFromEnvironment ? 'none (AGORA_API_KEY)' : stored;
      const me = await client.get<{ id: string; nickname: string; fullname: string; permission_set_id: string }>('/me').catch(async (error: unknown) => {
        // The server out of reach: what is known here is still said (which profile and server), then why.
        if ((error as { name?: string } | null)?.name === 'ConnectionError') await out.record({ profile, url: client.shownUrl });
        throw error;
      });
      await names.load('role', [me.permission_set_id]);
      const who = { profile, url: client.shownUrl, user_id: me.id, nickname: me.nickname, name: me.fullname, role: names.get('role', me.permission_set_id) ?? me.permission_set_id };
      await out.record(who);
    }),
  );

  examples(
    program.command('logout').description('forget the stored profile (the current one unless --profile)'),
    'agora logout',
    'agora logout --profile staging',
  ).action(async (_options: unknown, command: Command) => {
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
      const wasCurrent = file.current === profile;
      if (wasCurrent) file.current = Object.keys(file.profiles)[0];
      await creds.writeCredentials(file);
      // Another profile taking over runs the next command as someone else: never without saying so.
      const agora = (await import('../self-command.js')).selfCommand();
      const next = !wasCurrent
        ? ''
        : file.current
          ? `; the current profile is now "${file.current}" (${file.profiles[file.current]!.url}): ${agora} profiles use NAME for another`
          : `; no profile is left (${agora} login)`;
      new Output({ json: !!globals.json }).done(`Logged out: profile "${profile}" removed${next}`);
    });

  const profiles = program.command('profiles').description('the stored profiles: list them, pick the current one');
  examples(
    profiles.command('use').description('make a stored profile the current one').argument('<name>', 'profile name'),
    'agora profiles use staging',
  ).action(async (name: string, _options: unknown, command: Command) => {
    const globals = command.optsWithGlobals() as GlobalOptions;
    const [creds, { UsageError }, { Output }] = await Promise.all([import('../credentials.js'), import('../errors.js'), import('../output.js')]);
    const file = await creds.readCredentials();
    if (!file.profiles[name])
      throw new UsageError(`No profile named "${name}"; stored: ${Object.keys(file.profiles).join(', ') || `none (${(await import('../self-command.js')).selfCommand()} login)`}`);
    file.current = name;
    await creds.writeCredentials(file);
    new Output({ json: !!globals.json }).done(`Profile "${name}" (${file.profiles[name].url}) is now the current one`);
  });
  examples(profiles.command('list', { isDefault: true }).description('list the stored profiles (secrets are never shown)'), 'agora profiles').action(
    async (_options: unknown, command: Command) => {
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
    },
  );
}
