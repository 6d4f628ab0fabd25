import type { CallObserver } from '../client/api-client.js';
import { coloursFor } from './output.js';

/** Streams whose line a progress bar holds (an import's): the spinner draws nothing there, and stops if it was. */
const held = new Set<NodeJS.WriteStream>();
const spinning = new Map<NodeJS.WriteStream, () => void>();

/**
 * Keeps the slow-call spinner off `stream` until the returned function is called: a progress bar redraws its line
 * a few times a second, and ora drawing on the same line would overwrite it (and clear it when it stops).
 */
export function holdLine(stream: NodeJS.WriteStream): () => void {
  held.add(stream);
  spinning.get(stream)?.();
  return () => void held.delete(stream);
}

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
    if (inFlight === 0 || spinner || stream.columns === 0 || held.has(stream)) return;
    const made = ora({ text: label, stream, color, discardStdin: false });
    // Where ora cannot animate (a dumb terminal, or CI set), it would print the label once as a line of its
    // own: nothing is shown instead.
    if (!made.isEnabled) return;
    spinner = made.start();
    spinning.set(stream, stop);
  };
  const stop = () => {
    spinner?.stop();
    spinner = undefined;
    spinning.delete(stream);
  };
  return (call) => {
    label = call;
    if (spinner) spinner.text = call;
    if (inFlight++ === 0 && !showing) timer = setTimeout(() => void show(), delayMs);
    return () => {
      if (--inFlight > 0) return;
      clearTimeout(timer);
      stop();
      showing = false;
    };
  };
}
