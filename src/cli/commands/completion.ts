import { Argument, type Command } from 'commander';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish) for every command and option')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      '\nLoad it:\n  bash  source <(agora completion bash)\n  zsh   source <(agora completion zsh)\n  fish  agora completion fish | source',
    )
    .action(async (shell: 'bash' | 'zsh' | 'fish', _options: unknown, command: Command) => {
      const { completionScript } = await import('../completion-scripts.js');
      process.stdout.write(completionScript(command.parent!, shell));
    });
}
