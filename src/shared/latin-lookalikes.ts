/**
 * Cyrillic and Greek letters that look like a Latin one, and that letter: `Аdmins` with a Cyrillic А reads as
 * `Admins`. A small table of the common ones (Unicode's confusables.txt has thousands, most of them between scripts
 * nobody mixes into a role's name), written as escapes because in most fonts the two columns look the same.
 * Each letter is listed in the case it looks alike in: Greek `Ν` looks like N, and its small `ν` like v. Nicknames
 * are unique by what the table makes of them too (`lookalikeKey`, kept in `users.nickname_skeleton`): a change here
 * needs a migration that writes those again, as 0047 first wrote them (test/api/nickname-lookalikes compares its
 * copy of the table with this one).
 */
const PAIRS: [string, string][] = [
  // Cyrillic capitals: А В Е К М Н О Р С Т У Х Ѕ І Ј Ӏ Ԛ Ԝ Ү Ѵ
  ['\u0410', 'A'], ['\u0412', 'B'], ['\u0415', 'E'], ['\u041a', 'K'], ['\u041c', 'M'], ['\u041d', 'H'],
  ['\u041e', 'O'], ['\u0420', 'P'], ['\u0421', 'C'], ['\u0422', 'T'], ['\u0423', 'Y'], ['\u0425', 'X'],
  ['\u0405', 'S'], ['\u0406', 'I'], ['\u0408', 'J'], ['\u04c0', 'I'], ['\u051a', 'Q'], ['\u051c', 'W'],
  ['\u04ae', 'Y'], ['\u0474', 'V'],
  // Cyrillic small letters: а е о р с у х ѕ і ј һ ԁ ԛ ԝ ӏ ү ѵ
  ['\u0430', 'a'], ['\u0435', 'e'], ['\u043e', 'o'], ['\u0440', 'p'], ['\u0441', 'c'], ['\u0443', 'y'],
  ['\u0445', 'x'], ['\u0455', 's'], ['\u0456', 'i'], ['\u0458', 'j'], ['\u04bb', 'h'], ['\u0501', 'd'],
  ['\u051b', 'q'], ['\u051d', 'w'], ['\u04cf', 'l'], ['\u04af', 'y'], ['\u0475', 'v'],
  // Greek capitals: Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ Ϲ Ϳ, and the archaic Ϝ (digamma) and Ϻ (san)
  ['\u0391', 'A'], ['\u0392', 'B'], ['\u0395', 'E'], ['\u0396', 'Z'], ['\u0397', 'H'], ['\u0399', 'I'],
  ['\u039a', 'K'], ['\u039c', 'M'], ['\u039d', 'N'], ['\u039f', 'O'], ['\u03a1', 'P'], ['\u03a4', 'T'],
  ['\u03a5', 'Y'], ['\u03a7', 'X'], ['\u03f9', 'C'], ['\u037f', 'J'], ['\u03dc', 'F'], ['\u03fa', 'M'],
  // Greek small letters: α ι κ ν ο ρ υ ϲ ϳ
  ['\u03b1', 'a'], ['\u03b9', 'i'], ['\u03ba', 'k'], ['\u03bd', 'v'], ['\u03bf', 'o'], ['\u03c1', 'p'],
  ['\u03c5', 'u'], ['\u03f2', 'c'], ['\u03f3', 'j'],
];

export const LATIN_LOOKALIKES: ReadonlyMap<string, string> = new Map(PAIRS);

/**
 * The text with each such letter read as the Latin one, accents kept (a Cyrillic `Ё` is an `Ë`): decomposed first so
 * that a letter with a mark is found by its base letter, then composed again.
 */
export const asLatinLookalikes = (text: string): string =>
  Array.from(text.normalize('NFKD'), (c) => LATIN_LOOKALIKES.get(c) ?? c)
    .join('')
    .normalize('NFKC');

/** What makes two names one, nicknames and role names alike: compatibility-normalised (`ａｄａ` is `ada`), any case. */
export const nameKey = (name: string): string => name.normalize('NFKC').toLowerCase();

/**
 * What makes two names look like one: their `nameKey` once the letters of the table are read as Latin ones (`аda`
 * with a Cyrillic а, `ΑDA` with a Greek Α, and `ada` are all `ada`). A letter is read in the case it is written in,
 * before the case is set aside: a Greek `Ν` is an n here, its small `ν` a v.
 */
export const lookalikeKey = (name: string): string => once(once(name));
/** Twice: a capital the table lacks may set aside its case as a small letter it has (Cyrillic `Һ`, `һ`: h). */
const once = (name: string): string => nameKey(asLatinLookalikes(name));
