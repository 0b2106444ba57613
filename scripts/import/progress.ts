/**
 * The progress line an import draws on a terminal: rows read and the rate, redrawn in
 * place with `\r` at most a few times a second, and erased when the import ends. The
 * caller passes a writer only when stderr is a terminal, so logs never get it.
 */

const REDRAW_MS = 200;
const ERASE = "\r\x1b[K";

/** `unit` names what is counted: `rows read` by default; `leaveapi fetch` counts records fetched. */
export function createProgressLine(
  write: (text: string) => void,
  clock: () => number = () => performance.now(),
  unit: { noun: string; verb: string } = { noun: "rows", verb: "read" },
) {
  const started = clock();
  let lastDrawn = -Infinity;
  let drawn = false;
  return {
    update(rows: number): void {
      const t = clock();
      if (t - lastDrawn < REDRAW_MS) return;
      lastDrawn = t;
      const seconds = (t - started) / 1000;
      const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
      write(`${ERASE}${rows.toLocaleString("en")} ${unit.noun} ${unit.verb} (${rate.toLocaleString("en")} ${unit.noun}/s)`);
      drawn = true;
    },
    done(): void {
      if (drawn) write(ERASE);
    },
  };
}
