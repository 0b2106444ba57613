/**
 * Preloaded into a command whose peak memory a test or benchmark measures (peak-rss.ts):
 * at exit, writes the process's own peak RSS (VmHWM, in KiB) to the file
 * LEAVEAPI_PEAK_RSS_FILE names. The process's resource usage as its parent sees it would
 * not do: Linux carries the parent's RSS at fork into it, and the parent here is a test
 * run or benchmark that wrote hundreds of MB of workbooks.
 */
import { readFileSync, writeFileSync } from "node:fs";

const file = process.env.LEAVEAPI_PEAK_RSS_FILE;
if (file) {
  process.on("exit", () => {
    let kib = "";
    try {
      kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "";
    } catch {
      // Not Linux: no /proc, and nothing to report.
    }
    writeFileSync(file, kib);
  });
}
