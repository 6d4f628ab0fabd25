import type { CallObserver } from '../client/api-client.js';

/**
 * A spinner on stderr while a call is slow (over `delayMs`), on a terminal only: quick calls and piped runs
 * show nothing. ora loads the first time one is shown.
 */
export function slowCallSpinner(stream: NodeJS.WriteStream = process.stderr, delayMs = 300): CallObserver | undefined {
  if (!stream.isTTY) return undefined;
  let inFlight = 0;
  let label = '';
  let timer: NodeJS.Timeout | undefined;
  let spinner: { stop(): void; text: string } | undefined;
  let showing = false;
  const show = async () => {
    showing = true;
    const { default: ora } = await import('ora');
    if (inFlight === 0 || spinner) return;
    spinner = ora({ text: label, stream, discardStdin: false }).start();
  };
  return (call) => {
    label = call;
    if (spinner) spinner.text = call;
    if (inFlight++ === 0 && !showing) timer = setTimeout(() => void show(), delayMs);
    return () => {
      if (--inFlight > 0) return;
      clearTimeout(timer);
      spinner?.stop();
      spinner = undefined;
      showing = false;
    };
  };
}
