#!/usr/bin/env bun
/**
 * How `leaveapi import` copes with one very long JSONL line (issue 12): writes a file
 * holding a single employee whose `first_name` is N MB long, imports it into a fresh
 * SQLite database under `/usr/bin/time`, and prints the wall time, the peak RSS and the
 * first line of stderr. A limit of 1 MiB a line (README "Importing data") means the
 * import must refuse it, in time linear in the line and with memory that does not follow it.
 *
 *   bun bench/import-long-line.ts [--mb 80,200] [--timeout 60] [--cli "bun /path/to/scripts/cli.ts"]
 *
 * `--cli` runs another checkout (say, the previous commit unpacked with `git archive`),
 * so the figures before and after a change come from the same script.
 */
import { mkdtempSync, openSync, closeSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = join(import.meta.dir, "..");
const { values } = parseArgs({
  options: { mb: { type: "string", default: "80,200" }, timeout: { type: "string", default: "60" }, cli: { type: "string" } },
});
const cli = values.cli ? values.cli.split(" ") : [process.execPath, join(ROOT, "scripts/cli.ts")];
const timeoutSeconds = Number(values.timeout);

/** One line `{"external_id":"LONG","first_name":"aaa…","status":"active"}` of about `mb` MB, written in pieces. */
function writeLongLine(path: string, mb: number): void {
  const fd = openSync(path, "w");
  const piece = "a".repeat(1024 * 1024);
  writeSync(fd, '{"external_id":"LONG","first_name":"');
  for (let i = 0; i < mb; i++) writeSync(fd, piece);
  writeSync(fd, '","status":"active"}\n');
  closeSync(fd);
}

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe", env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "" } });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

const dir = mkdtempSync(join(tmpdir(), "leaveapi-long-line-"));
try {
  const db = ["--db", join(dir, "bench.sqlite")];
  const org = JSON.parse(run([...cli, ...db, "org", "create", "--name", "Long Line Ltd", "--json"]).stdout) as { id: string };
  console.log(`cli: ${cli.join(" ")}`);
  console.log("| line | exit | seconds | peak RSS | stderr (first line, cut at 100 characters) |");
  console.log("|---:|---|---:|---:|---|");
  for (const mb of values.mb.split(",").map(Number)) {
    const file = join(dir, `long-${mb}.jsonl`);
    writeLongLine(file, mb);
    const timed = run([
      "timeout",
      "-s",
      "KILL",
      String(timeoutSeconds),
      "/usr/bin/time",
      "-f",
      "TIME %e %M",
      ...cli,
      ...db,
      "import",
      "--org",
      org.id,
      "--kind",
      "employees",
      file,
    ]);
    const time = /TIME ([\d.]+) (\d+)/.exec(timed.stderr);
    const stderr = timed.stderr.split("\n").filter((line) => !line.startsWith("TIME ") && line !== "");
    const killed = time === null;
    const seconds = killed ? `killed at ${timeoutSeconds}` : time[1];
    const rss = killed ? "?" : `${Math.round(Number(time[2]) / 1024)} MB`;
    console.log(`| ${mb} MB | ${killed ? "killed" : timed.code} | ${seconds} | ${rss} | ${(stderr[0] ?? "").slice(0, 100)} |`);
    rmSync(file);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
