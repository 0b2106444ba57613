/**
 * An import's problems are bounded (docs/cli.md, "Errors and transactions";
 * scripts/import/problem-list.ts): the first thousand by line are listed, then one line
 * with how many more; every problem and every bad row is counted; nothing is written.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importFile } from "../scripts/import/import-file.ts";
import { PROBLEMS_LISTED, ProblemList } from "../scripts/import/problem-list.ts";
import { runCli, runJson } from "./cli-harness.ts";
import { createOrganisation, createWorld } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "leaveapi-problem-cap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const person = (n: number, status = "active") =>
  JSON.stringify({ external_id: `E${n}`, first_name: "Ada", last_name: `L${n}`, status, holiday_calendar: "GB-ENG" });

test("the list keeps the first problems by line, however late a problem arrives, and counts rows by their problems", () => {
  const list = new ProblemList(3);
  for (const line of [5, 5, 6, 9, 2, 7, 8, 3]) list.add(line, `line ${line}`, true);
  expect(list.listed()).toEqual(["line 2", "line 3", "line 5"]);
  expect(list.count).toBe(8);
  // 5 twice in a row is one row; 2 and 3, reported late, are rows of their own.
  expect(list.invalidRows).toBe(7);
  const header = new ProblemList();
  header.add(1, "header", false);
  header.add(2, "row", true);
  expect([header.count, header.invalidRows]).toEqual([2, 1]);
});

test("2,500 bad rows among good ones: the first thousand listed by line, one line for the rest, every one counted, nothing written", async () => {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const lines: string[] = [];
  // Every other row is bad; a good one at the very end is still read.
  for (let n = 1; n <= 5000; n++) lines.push(person(n, n % 2 === 0 ? "Active" : "active"));
  const file = join(dir, "many.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  const outcome = await importFile(world.store, { organisationId: org, kind: "employees", file, now: world.clock.now() });
  if (outcome.ok) throw new Error("imported a file with bad rows");
  expect(outcome.errors).toHaveLength(PROBLEMS_LISTED + 1);
  expect(outcome.errors[0]).toStartWith(`${file}:2: status:`);
  expect(outcome.errors[PROBLEMS_LISTED - 1]).toStartWith(`${file}:2000: status:`);
  expect(outcome.errors.at(-1)).toBe(`${file}: 1500 more problems not listed (2500 in all, in 2500 rows)`);
  expect(outcome).toMatchObject({ invalidRows: 2500, problemCount: 2500 });
  expect(await world.store.listEmployees({ organisationId: org, filters: {}, limit: 10 })).toEqual([]);
});

test("the command prints the first thousand and the count, and --json says the total", async () => {
  const scratch = join(dir, "cli.sqlite");
  const org = (await runJson<{ id: string }>(["--db", scratch, "org", "create", "--name", "Cap Ltd"])).id;
  const file = join(dir, "cli.jsonl");
  writeFileSync(file, `${Array.from({ length: 1200 }, (_, i) => person(i, "Active")).join("\n")}\n`);
  const plain = await runCli(["--db", scratch, "import", "--org", org, "--kind", "employees", file]);
  expect(plain.code).toBe(1);
  const stderr = plain.stderr.trimEnd().split("\n");
  expect(stderr).toHaveLength(PROBLEMS_LISTED + 2);
  expect(stderr.at(-2)).toBe(`${file}: 200 more problems not listed (1200 in all, in 1200 rows)`);
  expect(stderr.at(-1)).toBe("leaveapi: import failed: 1200 problems in 1200 rows; nothing was written");
  const json = await runCli(["--db", scratch, "import", "--org", org, "--kind", "employees", file, "--json"]);
  expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, problem_count: 1200, invalid_rows: 1200 });
  expect(JSON.parse(json.stdout).problems).toHaveLength(PROBLEMS_LISTED + 1);
});

test("two million bad rows: a thousand lines of output and a peak RSS under 200 MB", async () => {
  const scratch = join(dir, "flood.sqlite");
  const org = (await runJson<{ id: string }>(["--db", scratch, "org", "create", "--name", "Flood Ltd"])).id;
  const file = join(dir, "flood.jsonl");
  const writer = Bun.file(file).writer();
  for (let n = 0; n < 2_000_000; n++) writer.write(`${person(n, "Active")}\n`);
  await writer.end();
  // From source with the preload that reads the child's own peak (test/fixtures/peak-rss-preload.ts).
  const report = join(dir, "flood-rss");
  const proc = Bun.spawn(
    [
      process.execPath,
      "--preload",
      join(import.meta.dir, "fixtures/peak-rss-preload.ts"),
      join(import.meta.dir, "../scripts/cli.ts"),
      ...["--db", scratch, "import", "--org", org, "--kind", "employees", file],
    ],
    { stdout: "pipe", stderr: "pipe", env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "", PEAK_RSS_FILE: report } },
  );
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  const peak = Number(readFileSync(report, "utf8"));
  console.info(`peak RSS of leaveapi import, 2,000,000 bad rows: ${Math.round(peak / 1e6)} MB`);
  expect(code).toBe(1);
  expect(stderr.trimEnd().split("\n")).toHaveLength(PROBLEMS_LISTED + 2);
  expect(stderr).toEndWith("leaveapi: import failed: 2000000 problems in 2000000 rows; nothing was written\n");
  expect(peak).toBeLessThan(200e6);
}, 120_000);
