import type { Key } from 'ink';
import { useCallback, useRef, useState } from 'react';

/** One key of a run ink handed over as one string, as ink would have given it alone. */
export function typed(ch: string, run: Key): [string, Key] {
  const plain: Key = { ...run, shift: /^[A-Z]$/.test(ch), return: false, backspace: false, delete: false, tab: false, escape: false };
  if (ch === '\r' || ch === '\n') return ['', { ...plain, return: true }];
  if (ch === '\x7f' || ch === '\b') return ['', { ...plain, backspace: true }];
  if (ch === '\t') return ['', { ...plain, tab: true }];
  // Ctrl and a letter, as ink gives it alone (Ctrl-C among keys typed fast still stops).
  if (ch >= '\x01' && ch <= '\x1a') return [String.fromCharCode(ch.charCodeAt(0) + 96), { ...plain, ctrl: true }];
  return [/[\u0000-\u001f]/.test(ch) ? '' : ch, plain];
}

/**
 * State the key handler reads and writes. Keys can come faster than the screen renders (a pasted reason, `d` then
 * `y` at once), and each must see what the key before it did, not the last render: the ref is current at once.
 */
export function useKeyState<T>(initial: T): [T, (next: T) => void, { readonly current: T }] {
  const [value, setValue] = useState(initial);
  const now = useRef(initial);
  const set = useCallback((next: T) => {
    now.current = next;
    setValue(next);
  }, []);
  return [value, set, now];
}
