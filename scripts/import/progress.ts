/**
 * The progress line an import draws on a terminal, redrawn in place with `\r` at most a
 * few times a second and erased when the import ends. Given the bytes read, it shows them,
 * and with the file's size also the percentage, the rate and the time left; without them,
 * rows and their rate. The caller passes a writer only when stderr is a terminal, so logs
 * and pipes never get it. (Forty lines did not justify a progress library and its
 * dependencies, and none of them stays quiet off a terminal by itself.)
 */

const REDRAW_MS = 200;
const ERASE = "\r\x1b[K";

/** Bytes as a person reads them: 950 B, 12.3 MB, 1.2 GB (decimal units, as file managers show sizes). */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** Whole seconds as m:ss, or h:mm:ss from an hour. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(r)}` : `${m}:${pad(r)}`;
}

/**
 * `unit` names what is counted: `rows read` by default; `leaveapi fetch` counts records
 * fetched. `totalBytes` is the input's size, when known (a file; not stdin).
 */
export function createProgressLine(
  write: (text: string) => void,
  clock: () => number = () => performance.now(),
  unit: { noun: string; verb: string } = { noun: "rows", verb: "read" },
  totalBytes?: number,
) {
  const { noun, verb } = unit;
  const total = totalBytes;
  const started = clock();
  let lastDrawn = -Infinity;
  let drawn = false;
  return {
    /** `bytes`: how much of the input was read so far, when the caller counts it. */
    update(rows: number, bytes?: number): void {
      const t = clock();
      if (t - lastDrawn < REDRAW_MS) return;
      lastDrawn = t;
      const seconds = (t - started) / 1000;
      const perSecond = (n: number) => (seconds > 0 ? n / seconds : 0);
      const counted = `${rows.toLocaleString("en")} ${noun}`;
      let text: string;
      if (bytes === undefined) {
        text = `${counted} ${verb} (${Math.round(perSecond(rows)).toLocaleString("en")} ${noun}/s)`;
      } else if (total === undefined || total === 0) {
        text = `${formatBytes(bytes)} read, ${formatBytes(perSecond(bytes))}/s, ${counted}`;
      } else {
        const rate = perSecond(bytes);
        const eta = rate > 0 ? `, ${formatDuration((total - bytes) / rate)} left` : "";
        const percent = Math.min(100, Math.floor((bytes / total) * 100));
        text = `${formatBytes(bytes)} of ${formatBytes(total)} (${percent}%), ${formatBytes(rate)}/s${eta}, ${counted}`;
      }
      write(`${ERASE}${text}`);
      drawn = true;
    },
    done(): void {
      if (drawn) write(ERASE);
    },
  };
}
