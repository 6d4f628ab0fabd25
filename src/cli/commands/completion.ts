import { Argument, type Command } from 'commander';
import { examples } from '../command-kit.js';

export function registerCompletionCommand(program: Command): void {
  examples(
    program
      .command('completion')
      .description('print a shell completion script (bash, zsh or fish) for every command and option')
      .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish'])),
    'source <(agora completion bash)     # bash: load it now (add the line to ~/.bashrc to keep it)',
    'source <(agora completion zsh)      # zsh',
    'agora completion fish | source      # fish',
  ).action(async (shell: 'bash' | 'zsh' | 'fish', _options: unknown, command: Command) => {
      const { completionScript } = await import('../completion-scripts.js');
      process.stdout.write(completionScript(command.parent!, shell));
    });
}
