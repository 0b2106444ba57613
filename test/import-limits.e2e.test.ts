/**
 * The import's limits (README "Importing data"; issue 12): input is UTF-8, CSV too, and a
 * line that is not names its line; a line or record over 1 MiB is an error on its line,
 * read past without being held, so a huge line costs memory that does not follow its
 * length; a text field over 255 characters (code points) is an error. An import with any
 * of these writes nothing. On the store this run tests (LEAVEAPI_TEST_STORE).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { importFile, type ImportKind, type ImportOutcome } from "../scripts/import/import-file.ts";
import { readCsv } from "../scripts/import/read-csv.ts";
import { readJsonArray } from "../scripts/import/read-json-array.ts";
import { readJsonl } from "../scripts/import/read-jsonl.ts";
import { readLines } from "../scripts/import/read-lines.ts";
import { UnreadableRecord } from "../scripts/import/source.ts";
import { main } from "../scripts/cli.ts";
import type { Io } from "../scripts/cli-kit.ts";
import { runJson } from "./cli-harness.ts";
import { createOrganisation, createWorld } from "./support.ts";

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "leaveapi-import-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
/** Writes text or bytes to a fresh file with this extension and returns its path. */
function tempFile(extension: string, content: string | Uint8Array): string {
  const path = join(dir, `file-${++fileCount}.${extension}`);
  writeFileSync(path, content);
  return path;
}
const latin1 = (text: string) => Uint8Array.from(text, (ch) => ch.charCodeAt(0));
const utf8 = (text: string) => new TextEncoder().encode(text);
const joinBytes = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

async function setup() {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const run = (kind: ImportKind, file: string) => importFile(world.store, { organisationId: org, kind, file, now: world.clock.now() });
  const employees = () => world.store.listEmployees({ organisationId: org, filters: {}, limit: 500 });
  return { world, org, run, employees };
}

const errorsOf = (outcome: ImportOutcome) => (outcome.ok ? [] : outcome.errors);
const NOT_UTF8 = `row: is not valid UTF-8; save the file as UTF-8, or name its encoding with --encoding windows-1252|iso-8859-1|utf-16le or "encoding" in a --map file (reading stopped at this line; --dry-run reads on to find the other problems)`;
/** A JSONL line of exactly `bytes` bytes holding a valid employee: JSON whitespace pads it. */
const paddedLine = (externalId: string, bytes: number) => {
  const record = `{"external_id":"${externalId}","first_name":"Ann","last_name":"Lee","status":"active"`;
  return `${record}${" ".repeat(bytes - record.length - 1)}}`;
};

describe("input must be valid UTF-8", () => {
  test("a CSV with a byte that is not UTF-8 is refused at that line, and nothing is written", async () => {
    const { run, employees } = await setup();
    const file = tempFile(
      "csv",
      joinBytes(utf8("external_id,first_name,last_name,status\nA,Ada,Lovelace,active\n"), latin1("B,Jos\xe9,Lee,active\n"), utf8("C,Zoë,Lee,active\n")),
    );
    expect(await run("employees", file)).toMatchObject({ ok: false, invalidRows: 0, errors: [`${file}:3: ${NOT_UTF8}`] });
    expect(await employees()).toEqual([]);
  });

  test("a CSV line break inside a quoted field still counts: the bad byte's own line is named", async () => {
    const { run } = await setup();
    const file = tempFile(
      "csv",
      joinBytes(
        utf8('external_id,first_name,last_name,job_title,status\r\nA,Ann,Lee,"Engineer,\r\nsecond line",active\r\n'),
        latin1("B,Bo,Lee,Caf\xe9,active\r\n"),
      ),
    );
    expect(errorsOf(await run("employees", file))).toEqual([`${file}:4: ${NOT_UTF8}`]);
  });

  test("JSONL and JSON arrays name the line of the bad byte too, after the row errors before it", async () => {
    const { run, employees } = await setup();
    const jsonl = tempFile(
      "jsonl",
      joinBytes(
        utf8('{"external_id":"A","first_name":"Ann","last_name":"Lee"}\n'),
        latin1('{"external_id":"B","first_name":"Jos\xe9","last_name":"Lee","status":"active"}\n'),
      ),
    );
    expect(errorsOf(await run("employees", jsonl))).toEqual([`${jsonl}:1: status: is required`, `${jsonl}:2: ${NOT_UTF8}`]);
    const array = tempFile(
      "json",
      joinBytes(
        utf8('[\n  {"external_id": "A", "first_name": "Ann", "last_name": "Lee", "status": "active"},\n  {\n    "external_id": "B", "last_name": "Lee",\n'),
        latin1('    "first_name": "Jos\xe9"\n  }\n]\n'),
      ),
    );
    expect(errorsOf(await run("employees", array))).toEqual([`${array}:5: ${NOT_UTF8}`]);
    expect(await employees()).toEqual([]);
  });

  test("through the command line: one line naming file and line, exit 1", async () => {
    const db = join(dir, "utf8.sqlite");
    const { id: org } = await runJson<{ id: string }>(["--db", db, "org", "create", "--name", "UTF-8 Ltd"]);
    const file = tempFile("csv", joinBytes(utf8("external_id,first_name,last_name,status\nA,Ann,Lee,active\n"), latin1("\xff,Bo,Lee,active\n")));
    const err: string[] = [];
    const io: Io = { out: () => {}, err: (t) => err.push(t), errIsTty: false, env: {}, stdin: () => (async function* () {})() };
    expect(await main(["--db", db, "import", "--org", org, "--kind", "employees", file], io)).toBe(1);
    expect(err).toEqual([`${file}:3: ${NOT_UTF8}`, "leaveapi: import failed: 1 problem; nothing was written"]);
  });

  test("a byte-order mark at the start is still dropped, in CSV and JSONL", async () => {
    const { run, employees } = await setup();
    expect(await run("employees", tempFile("csv", "\ufeffexternal_id,first_name,last_name,status\nA,Ann,Lee,active\n"))).toMatchObject({ ok: true, rows: 1 });
    expect(await run("employees", tempFile("jsonl", '\ufeff{"external_id":"B","first_name":"Bo","last_name":"Lee","status":"active"}\n'))).toMatchObject({
      ok: true,
      rows: 1,
    });
    expect(await employees()).toHaveLength(2);
  });
});

describe("a line or record over 1 MiB is an error", () => {
  test("a JSONL line of exactly 1 MiB is read; one byte more is an error on its line, and reading goes on", async () => {
    const { run, employees } = await setup();
    const exact = paddedLine("EXACT", MiB);
    expect(utf8(exact).length).toBe(MiB);
    // The line break, \n or \r\n, is not part of the line.
    expect(await run("employees", tempFile("jsonl", `${exact}\r\n`))).toMatchObject({ ok: true, rows: 1 });
    expect((await employees()).map((e) => e.status)).toEqual(["active"]);

    const file = tempFile("jsonl", `${exact}\n${paddedLine("OVER", MiB + 1)}\n{"external_id":"C","first_name":"Cy","last_name":"Lee","status":"Active"}\n`);
    expect(await run("employees", file)).toMatchObject({
      ok: false,
      invalidRows: 2,
      errors: [
        `${file}:2: row: is 1,048,577 bytes long; a line may be at most 1 MiB (1,048,576 bytes)`,
        `${file}:3: status: "Active" is not a status; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": {"Active": "active"}} in a --map file`,
      ],
    });
    expect(await employees()).toHaveLength(1);
  });

  test("a JSON array element of exactly 1 MiB is read; one byte more is an error at its first line, and the scan goes on", async () => {
    const { run } = await setup();
    const ok = tempFile("json", `[\n${paddedLine("EXACT", MiB)}   \n]`);
    expect(await run("employees", ok)).toMatchObject({ ok: true, rows: 1 });
    const file = tempFile("json", `[${paddedLine("EXACT", MiB)},\n${paddedLine("OVER", MiB + 1)}\n,\n{"external_id":"C","first_name":"Cy","last_name":"Lee"}]`);
    expect(errorsOf(await run("employees", file))).toEqual([
      `${file}:2: row: is 1,048,577 bytes long; a record may be at most 1 MiB (1,048,576 bytes)`,
      `${file}:4: status: is required`,
    ]);
  });

  test("a CSV line of exactly 1 MiB is read (its field is then too long); a longer one stops reading at its line", async () => {
    const { run } = await setup();
    const row = (bytes: number) => `A,active,Lee,${"x".repeat(bytes - "A,active,Lee,".length)}`;
    const exact = tempFile("csv", `external_id,status,last_name,first_name\n${row(MiB)}\n`);
    expect(errorsOf(await run("employees", exact))).toEqual([`${exact}:2: first_name: must be at most 255 characters, not 1,048,563`]);
    const over = tempFile("csv", `external_id,status,last_name,first_name\r\nB,active,Lovelace,Ada\r\n${row(MiB + 1)}\r\nC,active,Turing,Alan\r\n`);
    expect(errorsOf(await run("employees", over))).toEqual([
      `${over}:3: row: is 1,048,577 bytes long; a line may be at most 1 MiB (1,048,576 bytes) (reading stopped at this line)`,
    ]);
  });

  test("a CSV record over 1 MiB on lines each under it stops reading at the line the record starts on", async () => {
    const { run } = await setup();
    const quoted = `"${Array.from({ length: 1100 }, () => "y".repeat(1000)).join("\r\n")}"`;
    const file = tempFile(
      "csv",
      `external_id,first_name,last_name,status,job_title\r\nA,Ann,Lee,active,Clerk\r\n\r\nB,Bo,Lee,active,${quoted}\r\nC,Cy,Lee,active,Clerk\r\n`,
    );
    expect(errorsOf(await run("employees", file))).toEqual([
      `${file}:4: row: its fields come to over 1 MiB; a record may be at most 1 MiB (reading stopped at this line)`,
    ]);
  });
});

describe("a text field over 255 characters is an error", () => {
  test("256 characters are refused and 255 taken, counted in code points; nothing is written on an error", async () => {
    const { run, employees } = await setup();
    const emoji = "😀".repeat(255); // 510 UTF-16 units, 255 characters
    const good = { external_id: "E".repeat(255), first_name: emoji, last_name: "L".repeat(255), job_title: "é".repeat(255), status: "active" };
    const bad = { external_id: "X".repeat(256), first_name: `${emoji}😀`, last_name: "Ok", department: "d".repeat(256), status: "active" };
    const file = tempFile("jsonl", `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
    expect(errorsOf(await run("employees", file))).toEqual([
      `${file}:2: external_id: must be at most 255 characters, not 256`,
      `${file}:2: first_name: must be at most 255 characters, not 256`,
      `${file}:2: department: must be at most 255 characters, not 256`,
    ]);
    expect(await employees()).toEqual([]);

    expect(await run("employees", tempFile("jsonl", `${JSON.stringify(good)}\n`))).toMatchObject({ ok: true, rows: 1 });
    expect(await employees()).toMatchObject([{ first_name: emoji, last_name: good.last_name, job_title: good.job_title }]);
    const csv = tempFile("csv", `external_id,first_name,last_name,status,preferred_name\nA,Ann,Lee,active,${"p".repeat(256)}\n`);
    expect(errorsOf(await run("employees", csv))).toEqual([`${csv}:2: preferred_name: must be at most 255 characters, not 256`]);
  });

  test("bookings and closure days too: the leave type's name and the external ids, on the fast path as on the schema", async () => {
    const { run } = await setup();
    expect(await run("employees", tempFile("jsonl", '{"external_id":"E1","first_name":"Ann","last_name":"Lee","status":"active"}\n'))).toMatchObject({
      ok: true,
    });
    const booking = {
      external_id: "B1",
      employee_external_id: "E1",
      leave_type: { name: "Annual", category: "annual", is_paid: true },
      start_date: "2026-03-02",
      end_date: "2026-03-02",
      status: "approved",
    };
    const leave = tempFile(
      "jsonl",
      [
        booking,
        { ...booking, external_id: "B2", leave_type: { ...booking.leave_type, name: "n".repeat(256) } },
        { ...booking, external_id: "B".repeat(256) },
        { ...booking, external_id: "B4", employee_external_id: "E".repeat(256) },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    expect(errorsOf(await run("leave", leave))).toEqual([
      `${leave}:2: leave_type.name: must be at most 255 characters, not 256`,
      `${leave}:3: external_id: must be at most 255 characters, not 256`,
      `${leave}:4: employee_external_id: must be at most 255 characters, not 256`,
    ]);
    const holidays = tempFile(
      "jsonl",
      `${JSON.stringify({ type: "company", date: "2026-12-24", name: "c".repeat(256) })}\n${JSON.stringify({ type: "company", date: "2026-12-24", name: "Closed", applies_to: "location", location: "l".repeat(256) })}\n`,
    );
    expect(errorsOf(await run("holidays", holidays))).toEqual([
      `${holidays}:1: name: must be at most 255 characters, not 256`,
      `${holidays}:2: location: must be at most 255 characters, not 256`,
    ]);
  });

  test("a record of thousands of unknown fields gets ten lines and a count; a long field name is shortened", async () => {
    const { run } = await setup();
    const record: Record<string, unknown> = { external_id: "A", first_name: "Ann", last_name: "Lee", status: "active", ["k".repeat(5000)]: 1 };
    for (let i = 0; i < 20_000; i++) record[`f${i}`] = i;
    const file = tempFile("jsonl", `${JSON.stringify(record)}\n`);
    const errors = errorsOf(await run("employees", file));
    expect(errors).toHaveLength(11);
    expect(errors[0]).toStartWith(`${file}:1: ${"k".repeat(40)}…: unknown field; the fields are id, external_id,`);
    expect(errors[10]).toBe(`${file}:1: row: has 19,991 more unknown fields`);
  });
});

describe("a huge line costs time and memory that do not follow its length", () => {
  const LINE_MB = 50;
  /** One record whose one line is LINE_MB MB, in 64 KiB chunks as a file stream gives them; samples live memory as it goes. */
  async function* hugeLine(head: string, tail: string, samples: number[]): AsyncIterable<Uint8Array> {
    yield utf8(head);
    for (let i = 0; i < LINE_MB * 16; i++) {
      if (i % 80 === 0) samples.push(liveBytes());
      yield new Uint8Array(64 * 1024).fill(0x61);
    }
    samples.push(liveBytes());
    yield utf8(tail);
  }
  // Collected first, so that what is counted is what the reader still holds.
  const liveBytes = () => {
    Bun.gc(true);
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };

  const LINE = LINE_MB * MiB;
  // Each with the line's (or element's) size in bytes and how the reader says it is too long.
  const formats = [
    ["JSONL", readJsonl, '{"external_id":"A","first_name":"', '","status":"active"}\n', 33 + LINE + 20, "a line"],
    ["a JSON array", readJsonArray, '[{"external_id":"A","first_name":"', '","status":"active"}]', 33 + LINE + 20, "a record"],
    ["CSV", readCsv, "external_id,first_name,status\nA,", ",active\n", 2 + LINE + 7, "a line"],
  ] as const;
  for (const [name, read, head, tail, size, what] of formats) {
    test(`${name}: a ${LINE_MB} MB line is refused on its line, and the reader never holds more than a few MB of it`, async () => {
      const samples: number[] = [];
      const before = liveBytes();
      let outcome: unknown;
      try {
        for await (const record of read(hugeLine(head, tail, samples))) outcome = record;
      } catch (error) {
        outcome = { line: (error as { line?: number }).line, message: (error as Error).message };
      }
      const problem = `is ${size.toLocaleString("en")} bytes long; ${what} may be at most 1 MiB (1,048,576 bytes)`;
      if (name === "CSV") expect(outcome).toEqual({ line: 2, message: `row: ${problem} (reading stopped at this line)` });
      else expect(outcome).toEqual({ line: 1, record: new UnreadableRecord(problem) });
      // Reading the line whole held it several times over in RSS (issue 12).
      expect(Math.max(...samples) - before).toBeLessThan(4 * MiB);
    });
  }

  test(`the command line refuses a ${LINE_MB} MB single-line JSONL in one line; its peak RSS grows far less than the line`, async () => {
    const db = join(dir, "huge.sqlite");
    const { id: org } = await runJson<{ id: string }>(["--db", db, "org", "create", "--name", "Huge Ltd"]);
    const small = tempFile("jsonl", `${paddedLine("SMALL", 2 * MiB)}\n`);
    const huge = tempFile("jsonl", `${paddedLine("HUGE", LINE)}\n`);
    // From source, whatever LEAVEAPI_BIN says: the preload is what reads the child's own peak.
    const peakRss = async (file: string) => {
      const report = join(dir, `rss-${++fileCount}`);
      const args = ["--db", db, "import", "--org", org, "--kind", "employees", file];
      const proc = Bun.spawn(
        [process.execPath, "--preload", join(import.meta.dir, "fixtures/peak-rss-preload.ts"), join(import.meta.dir, "../scripts/cli.ts"), ...args],
        {
          stdout: "pipe",
          stderr: "pipe",
          env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "", PEAK_RSS_FILE: report },
        },
      );
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      return { code, stderr, rss: Number(readFileSync(report, "utf8")) };
    };
    const base = await peakRss(small);
    const result = await peakRss(huge);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: `${huge}:1: row: is ${LINE.toLocaleString("en")} bytes long; a line may be at most 1 MiB (1,048,576 bytes)\nleaveapi: import failed: 1 problem in 1 row; nothing was written\n`,
    });
    console.info(
      `peak RSS of leaveapi import: ${Math.round(base.rss / MiB)} MiB for a 2 MiB line, ${Math.round(result.rss / MiB)} MiB for a ${LINE_MB} MiB line`,
    );
    // Read in chunks, the line costs only the chunks read and awaiting collection; read
    // whole, it took many times the line (issue 12), far above this bound.
    expect(result.rss - base.rss).toBeLessThan(LINE);
  }, 60_000);
});

describe("readLines", () => {
  const pieces = fc.constantFrom("a", "é", "😀", ",", "\n", "\r", "\r\n", "");
  /** What readLines should give: the text split at its line breaks, each with the break that ended it. */
  function expectedLines(text: string, crBreaks: boolean): [string, string][] {
    const pattern = crBreaks ? /\r\n|\r|\n/g : /\r\n|\n/g;
    const out: [string, string][] = [];
    let start = 0;
    for (const match of text.matchAll(pattern)) {
      out.push([text.slice(start, match.index), match[0]]);
      start = match.index + match[0].length;
    }
    if (start < text.length) out.push([text.slice(start), ""]);
    return out;
  }

  test("splits the same whatever the chunk boundaries, with \\n, \\r\\n and (for CSV) lone \\r", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { maxLength: 40 }), fc.array(fc.nat(60), { maxLength: 8 }), fc.boolean(), async (parts, cuts, crBreaks) => {
        const bytes = utf8(parts.join(""));
        const bounds = [0, ...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length];
        const chunks = (async function* () {
          for (let i = 1; i < bounds.length; i++) yield bytes.slice(bounds[i - 1], bounds[i]);
        })();
        const lines: [string, string][] = [];
        for await (const batch of readLines(chunks, { crBreaks })) for (const l of batch) lines.push([new TextDecoder().decode(l.bytes!), l.lineBreak]);
        expect(lines).toEqual(expectedLines(parts.join(""), crBreaks));
      }),
      { numRuns: 500 },
    );
  });
});
