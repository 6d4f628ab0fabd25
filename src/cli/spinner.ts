import type { CallObserver } from '../client/api-client.js';
import { coloursFor } from './output.js';

/**
 * A spinner on stderr while a call is slow (over `delayMs`), on a terminal only: quick calls and piped runs
 * show nothing, and so do terminals where ora does not animate (TERM=dumb, or CI set) or that report no width. Coloured as the tables
 * are: not with NO_COLOR. ora loads the first time one is shown.
 */
export function slowCallSpinner(stream: NodeJS.WriteStream = process.stderr, delayMs = 300): CallObserver | undefined {
  if (!stream.isTTY) return undefined;
  const color = coloursFor(stream) ? 'cyan' : false;
  let inFlight = 0;
  let label = '';
  let timer: NodeJS.Timeout | undefined;
  let spinner: { stop(): void; text: string } | undefined;
  let showing = false;
  const show = async () => {
    showing = true;
    const { default: ora } = await import('ora');
    // A terminal that reports no width (0 columns: `script` with no terminal on its input, some containers) gets
    // none: ora divides by the width, and would clear lines without end.
    if (inFlight === 0 || spinner || stream.columns === 0) return;
    const made = ora({ text: label, stream, color, discardStdin: false });
    // Where ora cannot animate (a dumb terminal, or CI set), it would print the label once as a line of its
    // own: nothing is shown instead.
    if (made.isEnabled) spinner = made.start();
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
