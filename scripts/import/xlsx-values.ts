/**
 * Cells of an .xlsx as a person reads them (read-xlsx.ts): numbers as Excel shows them in
 * General format, date serials as ISO dates, which number formats are dates, rich text
 * joined, and column letters.
 */

/** Excel's built-in number formats that show a date or a time (ECMA-376 part 1, 18.8.30, and the East Asian ones). */
export const DATE_FORMAT_IDS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58,
]);

/** Whether a number format shows a date or time: a d, m, y, h or s outside quotes, brackets and escapes (`[Red]`, `"days"`, `\d`). */
export function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\[[^\]]*\]|\\.|_.|\*./g, "");
  return /[dmyhs]/i.test(bare);
}

/** Collects the text of `<t>` elements (a string item's or an inline string's runs), not those of `<rPh>`. */
export function richText() {
  let collected = "";
  let inT = false;
  let phonetic = 0;
  return {
    open(name: string) {
      if (name === "rPh") phonetic++;
      else if (name === "t" && phonetic === 0) inT = true;
    },
    close(name: string) {
      if (name === "rPh") phonetic--;
      else if (name === "t") inT = false;
    },
    text(text: string) {
      if (inT) collected += text;
    },
    /** Whether text now is part of the value (in a `<t>`, not in a phonetic guide). */
    inText: () => inT,
    take(): string {
      const text = collected;
      collected = "";
      return text;
    },
  };
}

/** Columns A to XFD, rows 1 to 1,048,576: the most a sheet has (Excel's limits, ECMA-376 part 1, 18.3.1.4). */
export const MAX_COLUMNS = 16_384;
export const MAX_ROWS = 1_048_576;

/**
 * The column of a cell reference, A1 → 0, AB7 → 27; -1 when it is no reference or past
 * XFD1048576. At most three letters are looked at, so that a reference of thousands of
 * letters costs no more than one of three.
 */
export function columnIndex(reference: string): number {
  let column = 0;
  let i = 0;
  for (; i < reference.length && i <= 3; i++) {
    const letter = (reference.charCodeAt(i) | 0x20) - 96;
    if (letter < 1 || letter > 26) break;
    column = column * 26 + letter;
  }
  if (i === 0 || i > 3 || column > MAX_COLUMNS) return -1;
  const row = reference.slice(i);
  if (!/^[1-9][0-9]{0,6}$/.test(row) || Number(row) > MAX_ROWS) return -1;
  return column - 1;
}

/** The letters of a column, 0 → A, 27 → AB. */
export function columnLetter(column: number): string {
  let letters = "";
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/**
 * `text` in a string of its own. saxes hands out slices of the chunk of XML it was given,
 * and a slice keeps its whole chunk alive: a table of them, or a consumer that keeps a
 * cell's value, would hold the XML they came from.
 */
export const ownCopy = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/**
 * A number as Excel shows it in General format: rounded to 15 significant digits (what
 * Excel keeps; 0.1 + 0.2 is stored as 0.30000000000000004), integers without ".0", and
 * no exponent below 1e21 (ids, tiny fractions).
 */
export function numberText(value: string): string {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number)) return value;
  const text = String(Number(number.toPrecision(15)));
  const exponent = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (exponent === null) return text;
  const [, sign, lead, rest = "", power] = exponent;
  const shift = Number(power);
  if (shift < 0) return `${sign}0.${"0".repeat(-shift - 1)}${lead}${rest}`;
  return shift < 21 ? `${sign}${lead}${rest}${"0".repeat(shift - rest.length)}` : text;
}

const DAY_MS = 86_400_000;
/** The last day Excel shows, 9999-12-31, as a serial of the 1900 system. */
const LAST_SERIAL = 2_958_465;

/**
 * A date serial as `YYYY-MM-DD`, or `YYYY-MM-DDTHH:MM:SSZ` with a time of day (to the
 * nearest second, as Excel shows it); null when Excel would show no date (negative, past
 * 9999). The 1900 system counts 1900-01-01 as 1 and keeps Lotus's 1900-02-29 (serial 60),
 * which is given as such, for validation to reject; the 1904 system counts 1904-01-01 as 0.
 */
export function excelDate(serial: number, date1904: boolean): string | null {
  if (!Number.isFinite(serial) || serial < 0 || serial >= LAST_SERIAL + 1) return null;
  const seconds = Math.round(serial * 86_400);
  const days = Math.floor(seconds / 86_400);
  let date: string;
  if (date1904) date = new Date(Date.UTC(1904, 0, 1) + days * DAY_MS).toISOString().slice(0, 10);
  else if (days === 60) date = "1900-02-29";
  else date = new Date(Date.UTC(1899, 11, 31) + (days > 60 ? days - 1 : days) * DAY_MS).toISOString().slice(0, 10);
  const time = seconds - days * 86_400;
  if (time === 0) return date;
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date}T${two(Math.floor(time / 3600))}:${two(Math.floor(time / 60) % 60)}:${two(time % 60)}Z`;
}
