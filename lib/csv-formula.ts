/**
 * CSV injection (OWASP "CSV Injection"): a spreadsheet opening a CSV file runs a cell that
 * starts with `=`, `+`, `-` or `@` as a formula, and a leading tab or carriage return can
 * hide one; ASVS 5.0 (1.2.10) adds NUL. `leaveapi fetch --format csv` writes such a text
 * cell with a leading `'`, which spreadsheets read as "this is text" and do not show.
 * `leaveapi import` takes the `'` off again, so a fetched file imports unchanged (README
 * "Importing data"). A value that already starts with `'`s and then one of these
 * characters gets one more `'`, so the pair of rules loses nothing whatever the value.
 */

const FORMULA_LEADING = /^'*[=+\-@\t\r\0]/;
const NEUTRALISED = /^'+[=+\-@\t\r\0]/;

/** The text as a CSV cell a spreadsheet will not run. */
export function neutraliseFormula(text: string): string {
  return FORMULA_LEADING.test(text) ? `'${text}` : text;
}

/** The text a neutralised cell stood for; any other text as it is. */
export function restoreFormula(text: string): string {
  return NEUTRALISED.test(text) ? text.slice(1) : text;
}
