import { Box, render, Text, useApp, useInput, useStdout } from 'ink';
import { InterruptedError } from '../errors.js';
import { createElement as h, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ModerationItem } from '../../shared/schemas/moderation.js';

/** What the screen needs from the API: the queue, the two transitions, and news of changes. */
export interface QueueSource {
  load(): Promise<{ items: ModerationItem[]; total: number }>;
  accept(item: ModerationItem): Promise<void>;
  refuse(item: ModerationItem): Promise<void>;
  /** Calls `changed` when the queue may have changed (a notification came), `live` when the stream opens or drops. */
  subscribe(changed: () => void, live: (on: boolean) => void): () => void;
}

export interface ScreenOptions {
  /** Refuse without asking. */
  yes: boolean;
  color: boolean;
  /** A fresh look this often, for what no notification announces (an item settled by someone else). */
  refreshMs: number;
  /** Why an action failed, in one line. */
  describeError(error: unknown): string;
}

/** Names come from users: no control character reaches the terminal. */
const clean = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

const kindLabel = (item: ModerationItem) => (item.kind === 'invite' ? 'invite' : 'request');

/** "just now", "4m", "3h", "2d": how long an item has waited. */
export function waited(since: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export const describeItem = (item: ModerationItem) =>
  item.kind === 'invite'
    ? `the invite of ${clean(item.user.nickname)} to ${clean((item.page?.name ?? ''))}`
    : `${clean(item.user.nickname)}'s request to join ${clean((item.page?.name ?? ''))}`;

type Mode = 'list' | 'confirm' | 'details';
interface Message {
  text: string;
  tone: 'ok' | 'bad' | 'plain';
}

function QueueScreen({ source, options }: { source: QueueSource; options: ScreenOptions }): ReactNode {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [items, setItems] = useState<ModerationItem[]>([]);
  const [total, setTotal] = useState(0);
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [mode, setMode] = useState<Mode>('list');
  const [message, setMessage] = useState<Message>({ text: 'loading…', tone: 'plain' });
  const [live, setLive] = useState(false);
  const [, setTick] = useState(0);
  const busy = useRef(false);
  const lastIndex = useRef(0);

  const refresh = useCallback(async () => {
    try {
      const { items: fresh, total: count } = await source.load();
      setItems(fresh);
      setTotal(count);
      setMessage((m) => (m.text === 'loading…' ? { text: '', tone: 'plain' } : m));
    } catch (error) {
      setMessage({ text: options.describeError(error), tone: 'bad' });
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

  // The selection follows its item when the list changes around it; it moves on when the item leaves.
  const found = items.findIndex((i) => i.id === selectedId);
  const index = found === -1 ? Math.min(items.length - 1, Math.max(0, lastIndex.current)) : found;
  const selected = index >= 0 ? items[index] : undefined;
  lastIndex.current = Math.max(0, index);
  useEffect(() => {
    if (mode !== 'list' && !selected) setMode('list');
  }, [mode, selected]);

  const act = async (verb: 'accept' | 'refuse', item: ModerationItem) => {
    if (busy.current) return;
    busy.current = true;
    setMode('list');
    try {
      await (verb === 'accept' ? source.accept(item) : source.refuse(item));
      setMessage({ text: `${verb === 'accept' ? 'accepted' : 'refused'} ${describeItem(item)}`, tone: 'ok' });
    } catch (error) {
      setMessage({ text: options.describeError(error), tone: 'bad' });
    } finally {
      busy.current = false;
      await refresh();
    }
  };

  useInput((input, key) => {
    if (mode === 'confirm') {
      if (input === 'y' || input === 'Y') void act('refuse', selected!);
      else {
        setMode('list');
        setMessage({ text: 'nothing refused', tone: 'plain' });
      }
      return;
    }
    if (input === 'q') return exit();
    // Ctrl-C ends the run as it ends every command: exit 130 (`q` is the way out that is not an interruption).
    if (key.ctrl && input === 'c') return exit(new InterruptedError(''));
    if (mode === 'details' && (key.escape || key.return || key.backspace || key.leftArrow)) return setMode('list');
    if (key.upArrow || input === 'k') return setSelectedId(items[Math.max(0, index - 1)]?.id);
    if (key.downArrow || input === 'j') return setSelectedId(items[Math.min(items.length - 1, index + 1)]?.id);
    if (!selected) return;
    setSelectedId(selected.id);
    if (key.return) return setMode('details');
    if (input === 'a') return void act('accept', selected);
    if (input === 'r') {
      if (options.yes) return void act('refuse', selected);
      setMode('confirm');
    }
  });

  const c = options.color;
  const width = Math.max(20, size.columns);
  const height = Math.max(8, size.rows);
  const title = h(
    Box,
    { width, justifyContent: 'space-between' },
    h(Text, { bold: true, color: c ? 'cyan' : undefined, wrap: 'truncate-end' }, `agora queue · ${total} waiting`),
    h(Text, { color: c ? (live ? 'green' : 'yellow') : undefined }, live ? '● live' : '○ offline'),
  );
  const help =
    mode === 'confirm'
      ? `Refuse ${selected ? describeItem(selected) : ''}? (y/N)`
      : mode === 'details'
        ? '⏎/esc back  a accept  r refuse  q quit'
        : '↑↓ move  a accept  r refuse  ⏎ details  q quit';
  const footer = [
    h(Text, { key: 'msg', wrap: 'truncate-end', color: c ? (message.tone === 'ok' ? 'green' : message.tone === 'bad' ? 'red' : undefined) : undefined }, message.text || ' '),
    h(Text, { key: 'help', wrap: 'truncate-end', bold: mode === 'confirm', color: c && mode === 'confirm' ? 'yellow' : undefined, dimColor: c && mode !== 'confirm' }, help),
  ];
  const bodyRows = height - 5;
  let body: ReactNode;
  if (mode === 'details' && selected) {
    const field = (label: string, value: string) =>
      h(Box, { key: label }, h(Box, { width: 9, flexShrink: 0 }, h(Text, { bold: true }, label)), h(Text, { wrap: 'truncate-end' }, value));
    body = h(
      Box,
      { flexDirection: 'column', height: bodyRows + 1 },
      field('kind', selected.kind === 'invite' ? 'invite' : 'access request'),
      field('id', selected.id),
      field('page', `${clean(selected.page?.name ?? '')} (${selected.page?.privacy})`),
      field('who', `${clean(selected.user.name)} (${clean(selected.user.nickname)})`),
      ...(selected.user.email ? [field('email', clean(selected.user.email))] : []),
      field('waiting', `since ${selected.created_at} (${waited(selected.created_at)})`),
    );
  } else {
    const kindWidth = 8;
    const agoWidth = 5;
    const rest = width - 2 - kindWidth - agoWidth - 3;
    const pageWidth = Math.ceil(rest * 0.55);
    const whoWidth = rest - pageWidth;
    const row = (key: string, marker: string, cells: [string, string, string, string], style: { bold?: boolean; color?: string; dimColor?: boolean; inverse?: boolean }) =>
      h(
        Box,
        { key, width },
        h(Box, { width: 2, flexShrink: 0 }, h(Text, style, marker)),
        h(Box, { width: kindWidth + 1, flexShrink: 0 }, h(Text, { ...style, wrap: 'truncate-end' }, cells[0])),
        h(Box, { width: pageWidth + 1, flexShrink: 0 }, h(Text, { ...style, wrap: 'truncate-end' }, cells[1])),
        h(Box, { width: whoWidth + 1, flexShrink: 0 }, h(Text, { ...style, wrap: 'truncate-end' }, cells[2])),
        h(Box, { width: agoWidth, flexShrink: 0, justifyContent: 'flex-end' }, h(Text, style, cells[3])),
      );
    const first = Math.max(0, Math.min(index - bodyRows + 1, items.length - bodyRows));
    const shown = items.slice(Math.max(0, first), Math.max(0, first) + bodyRows);
    body = h(
      Box,
      { flexDirection: 'column', height: bodyRows + 1 },
      row('head', ' ', ['KIND', 'PAGE', 'WHO', 'WAIT'], { bold: true, dimColor: c }),
      ...(items.length === 0 && message.text !== 'loading…'
        ? [h(Text, { key: 'empty', wrap: 'truncate-end' }, '  Nothing waiting. New requests appear here as they come.')]
        : shown.map((item) =>
            row(
              item.id,
              item.id === selected?.id ? '›' : ' ',
              [kindLabel(item), clean((item.page?.name ?? '')), clean(item.user.nickname), waited(item.created_at)],
              item.id === selected?.id ? { bold: true, color: c ? 'cyan' : undefined } : {},
            ),
          )),
    );
  }
  return h(Box, { flexDirection: 'column', width, height: height - 1 }, title, body, ...footer);
}

/** Full screen (the terminal's alternate screen) until `q`; the screen before it comes back after. */
export async function runQueueScreen(source: QueueSource, options: ScreenOptions): Promise<void> {
  process.stdout.write('\u001b[?1049h\u001b[H');
  const app = render(h(QueueScreen, { source, options }), { exitOnCtrlC: false, patchConsole: false });
  try {
    await app.waitUntilExit();
  } finally {
    app.cleanup();
    process.stdout.write('\u001b[?1049l');
  }
}
