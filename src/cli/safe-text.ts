import { clip } from '../shared/errors.js';

/**
 * Text from the server made safe for a terminal: C0 and C1 control characters, DEL and the bidirectional
 * overrides are shown as visible stand-ins (ESC → ␛, BEL → ␇, CSI 0x9b → \x9b, U+202E → \u202e), never
 * interpreted, so that a name cannot clear the screen, set the window title or reorder what is shown. The
 * line and paragraph separators (U+2028, U+2029) too: a tool that splits lines on them would break a row.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

export function visible(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    if (code <= 0x9f) return `\\x${code.toString(16)}`;
    return `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * The first words of a stored text where a question or a line names it: as many as the terminal's width leaves beside
 * the rest of a line (24 characters on 80 columns, up to 60 on wider ones; `max` when given), cut between characters.
 */
export const firstWords = (text: string, max = Math.min(60, Math.max(24, (process.stdout.columns || 80) - 56))) =>
  clip(text, max);

/** One line of a cell: tabs and line breaks (U+2028 and U+2029 too) become one space, then every other control is made visible. */
export const visibleLine = (text: string): string => visible(text.replace(/[\t\r\n\u2028\u2029]+/g, ' '));

/**
 * What a terminal would act on inside JSON text: C0 (JSON.stringify escapes it already; the tab, line feed and
 * carriage return it writes raw are its own indentation), DEL, C1, the bidirectional controls, U+2028/U+2029.
 */
const JSON_UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * JSON for a terminal: the same document, each of those characters written as its `\uXXXX` escape. Outside
 * strings JSON is printable ASCII and whitespace, and inside one an escape stands for the same character, so
 * `JSON.parse` gives back exactly what the API sent. Piped, the API's text goes out as it is.
 */
export const terminalJson = (json: string): string =>
  json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * Rows (CSV) for a terminal: every control `visible` shows, but the tab, line feed and carriage return that lay the
 * rows out, so that a cell cannot retitle the window or clear the screen while the rows read as they are.
 */
export const visibleRows = (text: string): string => text.replace(JSON_UNSAFE, visible);

/** A line on stderr: JSON as it is (escaped for a terminal), anything else without control characters. */
export const sayOnStderr = (line: string, json: boolean): void =>
  void process.stderr.write(`${json ? (process.stderr.isTTY ? terminalJson(line) : line) : visible(line)}\n`);
