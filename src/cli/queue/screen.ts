import { render, useApp, useInput, useStdout, type Key } from 'ink';
import { InterruptedError, onSignals } from '../errors.js';
import { createElement as h, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ModerationItem, ReportItem } from '../../shared/schemas/moderation.js';
import { MAX_SUSPENSION_REASON } from '../../shared/schemas/suspensions.js';
import type { GroupReport, GroupState } from './details.js';
import { typed, useKeyState } from './keys.js';
import { defaultSuspensionReason, describeItem, isReport, outcome, suspensionNow, type Verb } from './items.js';
import { queueView, type Message, type Mode } from './view.js';

/** What the screen needs from the API: the queue, the transitions, the reports of a target, and news of changes. */
export interface QueueSource {
  load(): Promise<{ items: ModerationItem[]; total: number }>;
  accept(item: ModerationItem): Promise<void>;
  refuse(item: ModerationItem): Promise<void>;
  /** Resolves the target's reports by removing the content. */
  remove(item: ReportItem): Promise<void>;
  /** Resolves the target's reports by suspending the user reported or the content's author. */
  suspend(item: ReportItem, reason: string): Promise<void>;
  dismiss(item: ReportItem): Promise<void>;
  /** The target's open reports, for the details. */
  reportsOf(item: ReportItem): Promise<GroupReport[]>;
  /** Calls `changed` when the queue may have changed (a notification came), `live` when the stream opens or drops. */
  subscribe(changed: () => void, live: (on: boolean) => void): () => void;
}

export interface ScreenOptions {
  /** Settle without asking (a suspension then gives the default reason). */
  yes: boolean;
  /** Whether `s` is offered: the caller is an Admin (`is_admin` of `GET /me`). */
  maySuspend: boolean;
  /** The caller's id: their own content or account is not theirs to suspend (the API refuses it), said before a reason is typed. */
  me?: string;
  color: boolean;
  /** A fresh look this often, for what no notification announces (an item settled by someone else). */
  refreshMs: number;
  /** Why an action failed, in one line. */
  describeError(error: unknown): string;
  /** What an action still under way when `q` was pressed came to: said after the screen is gone. */
  onLeaving?(line: string): void;
}

const WRONG_KEY = 'a and r settle requests and invites; d, s and x settle reports';
/**
 * Only Admins suspend: `s` is off for others from the start (`is_admin` of `GET /me`), gone from the keys shown; and
 * after a refusal (the caller's role changed under the queue), for the rest of the run.
 */
const ADMINS_SUSPEND = 'only Admins suspend: d removes the content, x dismisses';
const NOT_YOURSELF = 'you cannot suspend yourself: d removes the content, x dismisses';

function QueueScreen({ source, options }: { source: QueueSource; options: ScreenOptions }): ReactNode {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [items, setItems, itemsNow] = useKeyState<ModerationItem[]>([]);
  const [total, setTotal] = useState(0);
  const [selectedId, setSelectedId, selectedIdNow] = useKeyState<string | undefined>(undefined);
  const [mode, setMode, modeNow] = useKeyState<Mode>('list');
  const [message, setMessage] = useState<Message>({ text: 'loading…', tone: 'plain' });
  const [live, setLive] = useState(false);
  // The stream may stay up while the calls fail (a key revoked, until its next delivery or keep-alive ends it; a
  // server that stopped answering): then the list on screen is not current, and the header must not say live.
  const [current, setCurrent] = useState(true);
  const [maySuspend, setMaySuspend] = useState(options.maySuspend);
  const [, setTick] = useState(0);
  // Settling keys pressed before the last one is done wait their turn (`a`, `j`, `a` typed fast settle two items);
  // an item is settled once, however often its key is pressed meanwhile; `q` waits for them all.
  const settling = useRef(Promise.resolve());
  const inFlight = useRef(new Set<string>());
  const quitting = useRef(false);
  // Loads overlap (the timer, the stream, each settle): one that began before the last one shown is old news.
  const loads = useRef({ begun: 0, shown: 0 });
  const loadFailure = useRef<Message | undefined>(undefined);
  // An act the server did not answer: said until a look tells whether its item has left the queue since.
  const unanswered = useRef<{ item: ModerationItem; said: string; message: Message } | undefined>(undefined);
  // A paste (bracketed by the terminal) is text for a reason, never keys for the list.
  const pasting = useRef(false);

  // The selection follows its item when the list changes around it. When its item leaves, it is the item now in
  // its place, chosen here with the new list (not at the next render, when keys pressed meanwhile have moved it):
  // another item leaving above it then does not move it onto a row the moderator never chose.
  const refresh = useCallback(async () => {
    const load = ++loads.current.begun;
    try {
      const { items: fresh, total: count } = await source.load();
      if (load < loads.current.shown) return;
      loads.current.shown = load;
      const place = selection(itemsNow.current, selectedIdNow.current).index;
      setItems(fresh);
      if (!fresh.some((item) => item.id === selectedIdNow.current)) setSelectedId(fresh[Math.min(Math.max(0, place), fresh.length - 1)]?.id);
      setTotal(count);
      setCurrent(true);
      // What a failed load said is over once one succeeds; an unanswered act is told by its item having left.
      const open = unanswered.current;
      if (open && !fresh.some((item) => sameItem(item, open.item))) {
        unanswered.current = undefined;
        setMessage((m) => (m === open.message ? { text: `${open.said}: it has left the queue since (done, or settled elsewhere)`, tone: 'ok' } : m));
      } else setMessage((m) => (m.text === 'loading…' || m === loadFailure.current ? { text: '', tone: 'plain' } : m));
    } catch (error) {
      loadFailure.current = { text: options.describeError(error), tone: 'bad' };
      setCurrent(false);
      // The header says the list is not current; an unanswered act's message stays, naming its item.
      setMessage((m) => (m === unanswered.current?.message ? m : loadFailure.current!));
    }
  }, [source, options]);

  useEffect(() => {
    void refresh();
    const stop = source.subscribe(() => void refresh(), setLive);
    const timer = setInterval(() => {
      void refresh();
      setTick((n) => n + 1);
    }, options.refreshMs);
    const resized = () => setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', resized);
    return () => {
      stop();
      clearInterval(timer);
      stdout.off('resize', resized);
    };
  }, [refresh, source, options.refreshMs, stdout]);

  const { index, selected } = selection(items, selectedId);
  // A question is about the item as it was when its key was pressed (`pending`), which may leave the list meanwhile.
  useEffect(() => {
    if (mode === 'details' && !selected) setMode('list');
  }, [mode, selected]);

  // The details of a report show every open report on its target, read when they open and when the count moves.
  const [group, setGroup] = useState<GroupState>();
  const detailed = mode === 'details' && selected && isReport(selected) ? selected : undefined;
  useEffect(() => {
    if (!detailed) return;
    let current = true;
    source.reportsOf(detailed).then(
      (reports) => current && setGroup({ itemId: detailed.id, reports }),
      (error: unknown) => current && setGroup({ itemId: detailed.id, error: options.describeError(error) }),
    );
    return () => void (current = false);
  }, [detailed?.id, detailed?.reports, source, options]);

  // What a confirmation or a reason is asked for: the item as it was when the key was pressed.
  const [pending, setPending, pendingNow] = useKeyState<{ verb: Verb; item: ModerationItem } | undefined>(undefined);
  const [reason, setReason, reasonNow] = useKeyState('');

  // A failure with settles queued after it: each one's success would replace it at once, so they carry it along.
  const unseenFailure = useRef<string | undefined>(undefined);
  const act = (verb: Verb | 'accept', item: ModerationItem, suspension?: string) => {
    setMode('list');
    setPending(undefined);
    if (inFlight.current.has(item.id)) return setMessage({ text: 'that one is being settled already', tone: 'plain' });
    inFlight.current.add(item.id);
    settling.current = settling.current
      .then(() => settle(verb, item, suspension))
      // A failure is on the screen already (`settle`); whatever else goes wrong must not stop the settles after it.
      .catch(() => {})
      .finally(() => {
        inFlight.current.delete(item.id);
        if (inFlight.current.size === 0) unseenFailure.current = undefined;
      });
  };
  const settle = async (verb: Verb | 'accept', item: ModerationItem, suspension?: string) => {
    try {
      if (verb === 'accept') await source.accept(item);
      else if (verb === 'refuse') await source.refuse(item);
      else if (verb === 'remove') await source.remove(item as ReportItem);
      else if (verb === 'dismiss') await source.dismiss(item as ReportItem);
      else await source.suspend(item as ReportItem, suspension ?? defaultSuspensionReason(item as ReportItem));
      const failure = unseenFailure.current;
      unanswered.current = undefined;
      setMessage(failure ? { text: `${outcome(verb, item)}; before it, ${failure}`, tone: 'bad' } : { text: outcome(verb, item), tone: 'ok' });
    } catch (error) {
      // `forbidden`, not `account_suspended` (the caller's own suspension, which says so itself).
      const refused = verb === 'suspend' && (error as { status?: unknown; code?: unknown } | null)?.code === 'forbidden';
      if (refused) setMaySuspend(false);
      // No answer: the server may have done it all the same (the next look tells); a moderator must not take it
      // for a refusal and press the key again on whatever is then selected.
      // Sent, unanswered: it may have been done. A request that never left (the server refused the connection) was not.
      const unknown = (error as { name?: string } | null)?.name === 'ConnectionError' && (error as { sent?: boolean }).sent !== false;
      // A refusal names what it refused: it stays on screen while another item is selected.
      const said = refused ? ADMINS_SUSPEND : options.describeError(error);
      const text = unknown ? `${outcome(verb, item)}? no answer: not known whether it went through` : refused ? said : `${describeItem(item)}: ${said}`;
      const message: Message = { text, tone: 'bad' };
      setMessage(message);
      unanswered.current = unknown ? { item, said: outcome(verb, item), message } : undefined;
      if (inFlight.current.size > 1) unseenFailure.current = text;
      if (quitting.current) options.onLeaving?.(unknown ? text : `${outcome(verb, item)}: ${said}`);
      return;
    } finally {
      if (!quitting.current) await refresh();
    }
    if (quitting.current) options.onLeaving?.(outcome(verb, item));
  };

  /** Text typed or pasted into a reason: without control characters, and no longer than a reason may be. */
  const typeInReason = (text: string) =>
    setReason((reasonNow.current + text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')).slice(0, MAX_SUSPENSION_REASON));

  /** A settling key: at once with --yes, else after a question (a suspension asks for its reason). */
  const ask = (verb: Verb, item: ModerationItem) => {
    if (options.yes) return void act(verb, item);
    setPending({ verb, item });
    setReason('');
    setMode(verb === 'suspend' ? 'reason' : 'confirm');
  };

  // Keys that arrive together are taken one after the other: ink hands over each escape sequence (an arrow) apart,
  // but a run of other keys (`jj` or `y⏎` typed fast, a pasted reason) as one string.
  // In a run, a line break inside a reason is a space (a pasted reason of several lines), and keys after one that
  // answered a question or ended the run are dropped: they were typed for the question, not for the list.
  useInput((input, key) => {
    if (input === '[200~' || input === '[201~') return void (pasting.current = input === '[200~');
    // Unbracketed, a run of keys holding a space or a line break, on the list, is taken for a paste too (no one
    // types `ok done yes⏎` as commands): it would move, open questions and answer them. A key and the ⏎ after it
    // (`j⏎` over a slow link) are keys.
    const onList = modeNow.current === 'list' || modeNow.current === 'details';
    if (pasting.current || (onList && /\s/.test(input.replace(/^(\S)[\r\n]$/u, '$1')) && [...input].length > 1)) {
      if (modeNow.current === 'reason') return void typeInReason(input.replace(/[\r\n\t]+/g, ' '));
      return void setMessage({ text: 'pasted text is not taken as keys here: type them one by one', tone: 'bad' });
    }
    const keys = [...input];
    if (keys.length < 2 || key.ctrl || key.meta) return void onKey(input, key);
    for (const [i, ch] of keys.entries()) {
      const last = i === keys.length - 1;
      const before = modeNow.current;
      if (before === 'reason' && !last && (ch === '\r' || ch === '\n')) onKey(' ', typed(' ', key)[1]);
      else onKey(...typed(ch, key));
      if (quitting.current || ((before === 'confirm' || before === 'reason') && modeNow.current !== before)) return;
    }
  });
  const onKey = (input: string, key: Key) => {
    if (quitting.current && !(key.ctrl && input === 'c')) return;
    // What the keys before this one did, even if the screen has not rendered it yet.
    const { index, selected } = selection(itemsNow.current, selectedIdNow.current);
    const items = itemsNow.current;
    const mode = modeNow.current;
    const pending = pendingNow.current;
    const reason = reasonNow.current;
    if (mode === 'confirm' && pending) {
      if (input === 'y' || input === 'Y') void act(pending.verb, pending.item);
      else {
        setMode('list');
        setPending(undefined);
        setMessage({ text: `nothing ${pending.verb === 'refuse' ? 'refused' : pending.verb === 'remove' ? 'removed' : 'dismissed'}`, tone: 'plain' });
      }
      return;
    }
    if (mode === 'reason' && pending) {
      if (key.return) return void act('suspend', pending.item, reason.trim() || defaultSuspensionReason(pending.item as ReportItem));
      if (key.escape || (key.ctrl && input === 'c')) {
        setMode('list');
        setPending(undefined);
        return setMessage({ text: 'nobody suspended', tone: 'plain' });
      }
      if (key.backspace || key.delete) return setReason(reason.slice(0, -1));
      if (input && !key.ctrl && !key.meta) typeInReason(input);
      return;
    }
    // Ctrl-C ends the run as it ends every command: exit 130, dropping the settles not yet sent. `q` is the way out
    // that is not an interruption: it waits for them.
    if (key.ctrl && input === 'c') return void ((quitting.current = true), exit(new InterruptedError('')));
    if (input === 'q') {
      quitting.current = true;
      if (inFlight.current.size > 0) setMessage({ text: `finishing ${inFlight.current.size === 1 ? 'the last action' : `${inFlight.current.size} actions`}…`, tone: 'plain' });
      return void settling.current.then(() => exit());
    }
    if (mode === 'details' && (key.escape || key.return || key.backspace || key.leftArrow)) return setMode('list');
    if (key.upArrow || input === 'k') return setSelectedId(items[Math.max(0, index - 1)]?.id);
    if (key.downArrow || input === 'j') return setSelectedId(items[Math.min(items.length - 1, index + 1)]?.id);
    // A busy queue is walked a screen at a time, or to either end (Home/End, g/G as in less).
    const screenful = Math.max(1, size.rows - 6);
    if (key.pageDown) return setSelectedId(items[Math.min(items.length - 1, index + screenful)]?.id);
    if (key.pageUp) return setSelectedId(items[Math.max(0, index - screenful)]?.id);
    if (key.home || input === 'g') return setSelectedId(items[0]?.id);
    if (key.end || input === 'G') return setSelectedId(items.at(-1)?.id);
    if (!selected) return;
    setSelectedId(selected.id);
    if (key.return) return setMode('details');
    if (!isReport(selected)) {
      // A suspended user's request or invite cannot be accepted while the suspension lasts (the API says so too).
      if (input === 'a' && suspensionNow(selected)) return setMessage({ text: `${describeItem(selected)}: the user is suspended; r refuses`, tone: 'bad' });
      if (input === 'a') return void act('accept', selected);
      if (input === 'r') return ask('refuse', selected);
      if (input && 'dsx'.includes(input)) setMessage({ text: WRONG_KEY, tone: 'bad' });
      return;
    }
    if (input && 'ar'.includes(input)) return setMessage({ text: WRONG_KEY, tone: 'bad' });
    if (input === 'd') {
      if (selected.target.type === 'User')
        return setMessage({ text: maySuspend ? 'a user cannot be removed: s suspends them' : 'a user cannot be removed: Admins suspend them', tone: 'bad' });
      return ask('remove', selected);
    }
    if (input === 's' && maySuspend && selected.target.user?.id === options.me) return setMessage({ text: NOT_YOURSELF, tone: 'bad' });
    if (input === 's') return maySuspend ? ask('suspend', selected) : setMessage({ text: ADMINS_SUSPEND, tone: 'bad' });
    if (input === 'x') return ask('dismiss', selected);
  };

  return queueView({ items, total, index, selected, mode, pending, reason, message, live, current, maySuspend, group, size, color: options.color });
}

/** Full screen (the terminal's alternate screen) until `q`; the screen before it comes back after. */
export async function runQueueScreen(source: QueueSource, options: ScreenOptions): Promise<void> {
  // The alternate screen, and bracketed paste: pasted text comes marked, so that it is never read as keys.
  process.stdout.write('\u001b[?1049h\u001b[H\u001b[?2004h');
  const app = render(h(QueueScreen, { source, options }), { exitOnCtrlC: false, patchConsole: false });
  // A SIGINT (Ctrl-C before ink's raw mode is on, or `kill -INT`) is an interruption as the Ctrl-C key is: exit 130.
  let interrupted = false;
  const onSignal = () => void ((interrupted = true), app.unmount());
  const stopListening = onSignals(['SIGINT'], onSignal);
  try {
    await app.waitUntilExit();
  } finally {
    stopListening();
    app.cleanup();
    process.stdout.write('\u001b[?2004l\u001b[?1049l');
  }
  if (interrupted) throw new InterruptedError('');
}

/** The selected item and its place: the item `id` names, else the first; -1 in an empty list. */
function selection(list: ModerationItem[], id: string | undefined): { index: number; selected: ModerationItem | undefined } {
  const index = list.length === 0 ? -1 : Math.max(0, list.findIndex((i) => i.id === id));
  return { index, selected: list[index] };
}

/** The same waiting thing: a report item stands for its target (its id is the target's first open report's). */
const sameItem = (a: ModerationItem, b: ModerationItem): boolean =>
  isReport(a) && isReport(b) ? a.target.type === b.target.type && a.target.id === b.target.id : a.id === b.id;
