/**
 * How a CSV cell that a spreadsheet would take for a formula starts (=, +, -, @, a tab or a carriage return: a user
 * named `=HYPERLINK(…)` or `=cmd|' /C calc'!A0`), or one already starting with `'`s before such a character.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** The cell as `GET /users/export?format=csv` writes it: such a text after a `'`, which spreadsheets show as text (OWASP, "CSV injection"). */
export const shieldedCell = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

/** The cell as `agora users import` reads it: the one `'` the export added taken off again (`''=x` was `'=x`). */
export const unshieldedCell = (text: string): string => (text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text);
