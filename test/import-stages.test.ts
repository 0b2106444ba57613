/**
 * The import's stages one by one (scripts/import/README.md): the plan, read, decode, map,
 * validate and write, each given its input directly and its output checked, with no
 * command line and (but for the write stage's memory store) no store.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { noCounts, type ImportContext } from "../scripts/import/import-context.ts";
import { checkImportMap, NO_MAP } from "../scripts/import/import-map.ts";
import { planImport, type ImportPlan } from "../scripts/import/import-plan.ts";
import { importColumns, type ImportRow } from "../scripts/import/normalise-records.ts";
import { CsvHeader, UnreadableRecord } from "../scripts/import/source.ts";
import { decodeRecords, decodeSource, type Decoded } from "../scripts/import/stage-decode.ts";
import { columnsRead, createMapStage } from "../scripts/import/stage-map.ts";
import { readSource } from "../scripts/import/stage-read.ts";
import { createValidateStage } from "../scripts/import/stage-validate.ts";
import { createWriteStage } from "../scripts/import/stage-write.ts";
import { scratchFiles } from "./import-kit.ts";

const ORG = "00000000-0000-4000-8000-000000000001";
const { file } = scratchFiles("stages");

function plan(extra: Partial<Parameters<typeof planImport>[0]> = {}): ImportPlan {
  const planned = planImport({ organisationId: ORG, kind: "employees", file: "staff.csv", now: 0, ...extra });
  if (!planned.ok) throw new Error(planned.problem);
  return planned.plan;
}

const mapOf = (json: object) => checkImportMap(json, importColumns("employees", true), {}, "map.json", "employees");

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const bytes = (text: string | Uint8Array) =>
  (async function* () {
    yield typeof text === "string" ? new TextEncoder().encode(text) : text;
  })();

describe("plan", () => {
  test("resolves the format once, from --format or the name; stdin is JSONL; a name that does not tell, or a workbook on stdin, is its one problem", () => {
    expect(plan()).toMatchObject({ format: "csv", label: "staff.csv", mode: "write", map: NO_MAP, describe: false });
    expect(plan({ file: "-" })).toMatchObject({ format: "jsonl", label: "stdin" });
    expect(plan({ file: "staff.txt", format: "csv", dryRun: true })).toMatchObject({ format: "csv", mode: "dry-run" });
    expect(planImport({ organisationId: ORG, kind: "employees", file: "staff.txt" })).toEqual({
      ok: false,
      problem: "staff.txt: cannot tell the format from the file name: name it .jsonl, .json, .csv or .xlsx, or pass --format jsonl|json|csv|xlsx",
    });
    expect(planImport({ organisationId: ORG, kind: "employees", file: "-", format: "xlsx" })).toMatchObject({ ok: false });
  });
});

describe("read", () => {
  test("a text file is its bytes and size; a workbook its path; a missing file a problem, not an exception", async () => {
    const path = file("csv", "a,b\n");
    const read = await readSource(plan({ file: path }));
    expect(read.ok && read.source.kind === "bytes" && read.source.size).toBe(4);
    expect(await readSource(plan({ file: "book.xlsx" }))).toEqual({ ok: true, source: { kind: "workbook", path: "book.xlsx" } });
    const missing = await readSource(plan({ file: `${path}-gone.csv` }));
    expect(missing.ok ? null : missing.problem.message).toBe("cannot read: no such file");
    expect((await readSource(plan({ file: "-" }))).ok).toBe(false);
  });
});

describe("decode", () => {
  const options = { columnsRead: () => new Set<string>(), knownColumns: new Set(["external_id", "first_name"]) };
  test("a CSV as a header, records and an unreadable row, each at its line", async () => {
    const source = { kind: "bytes" as const, chunks: bytes("external_id,first_name\nE1,Ada\nE2\n"), size: undefined };
    expect(await all(decodeSource(plan(), source, options))).toEqual([
      { kind: "header", line: 1, names: ["external_id", "first_name"] },
      { kind: "record", line: 2, record: { external_id: "E1", first_name: "Ada" } },
      { kind: "problem", line: 3, of: "row", problem: { field: "row", problem: expect.any(String), code: "unreadable" } },
    ]);
  });

  test("a dry run reads a Windows-1252 file on, the guess told as a problem of the file; a real import stops there", async () => {
    const cp1252 = Uint8Array.from([..."external_id,first_name\nE1,Jürgen\n"].map((c) => (c === "ü" ? 0xfc : c.charCodeAt(0))));
    const source = () => ({ kind: "bytes" as const, chunks: bytes(cp1252), size: undefined });
    const dry = await all(decodeSource(plan({ dryRun: true }), source(), options));
    expect(dry.map((d) => d.kind)).toEqual(["problem", "header", "record"]);
    expect(dry[0]).toMatchObject({ line: 2, of: "file", problem: { code: "encoding", value: "Jürgen" } });
    expect(dry[2]).toEqual({ kind: "record", line: 2, record: { external_id: "E1", first_name: "Jürgen" } });
    const real = await all(decodeSource(plan(), source(), options));
    expect(real.at(-1)).toMatchObject({ kind: "stop", problem: { line: 2 } });
  });

  test("records already read pass as they are; a thrown FileProblem becomes a stop, the last item", async () => {
    const records = [
      { line: 1, record: new CsvHeader(["a"]) },
      { line: 2, record: { a: 1 } },
      { line: 3, record: new UnreadableRecord("bad") },
    ];
    expect((await all(decodeRecords(records))).map((d: Decoded) => d.kind)).toEqual(["header", "record", "problem"]);
    const { FileProblem } = await import("../scripts/import/source.ts");
    const failing = (async function* () {
      yield { line: 1, record: { a: 1 } };
      throw new FileProblem("row: too long", 2);
    })();
    expect(await all(decodeRecords(failing))).toEqual([
      { kind: "record", line: 1, record: { a: 1 } },
      { kind: "stop", problem: expect.objectContaining({ message: "row: too long", line: 2 }) },
    ]);
  });
});

describe("map", () => {
  test("a header gives the fields it reads, the columns it does not, and its problems; a row is rewritten with its own", () => {
    const stage = createMapStage(plan({ map: mapOf({ columns: { Nr: "external_id" }, dates: "DD.MM.YYYY" }) }));
    const header = stage.header(["Nr", "first_name", "Eintritt", "Farbe"]);
    expect(header.fields).toEqual(["external_id", "first_name"]);
    expect(header.unread).toEqual(["Eintritt", "Farbe"]);
    expect(header.problems.map((p) => p.code)).toEqual(["unknown_columns"]);
    expect(stage.describeField("external_id")).toBe('external_id (column "Nr")');
    expect(stage.row({ Nr: "E1", first_name: "Ada", Farbe: "blau" })).toEqual({ record: { external_id: "E1", first_name: "Ada" }, problems: [] });
    expect(columnsRead(plan({ map: mapOf({ columns: { Nr: "external_id" } }) }), ["Nr", "Farbe"])).toEqual(new Set(["Nr"]));
  });

  test("an unknown column of a likely field is read as it, so that its values are checked", () => {
    const stage = createMapStage(plan());
    expect(stage.header(["external_id", "Vorname"]).fields).toEqual(["external_id", "first_name"]);
    expect(stage.row({ external_id: "E1", Vorname: "Ada" }).record).toEqual({ external_id: "E1", first_name: "Ada" });
    expect(stage.columnOf("first_name")).toBe("Vorname");
  });
});

describe("validate", () => {
  const validate = createValidateStage(plan());
  test("a valid record becomes the row as stored; an invalid one every problem, each field once", () => {
    const ok = validate({ record: { external_id: "E1", first_name: "Ada", last_name: "L", status: "active" }, problems: [] });
    expect(ok.ok && ok.row.type).toBe("employee");
    const bad = validate({
      record: { external_id: "E1", first_name: "Ada", last_name: "L", status: "Aktiv" },
      problems: [{ field: "start_date", problem: "not in the map's format", code: "date_format" }],
    });
    expect(bad.ok ? [] : bad.problems.map((p) => [p.field, p.code])).toEqual([
      ["start_date", "date_format"],
      ["status", "not_a_word"],
    ]);
    // The map's problem alone is enough to refuse a row the rules would take.
    expect(validate({ record: { external_id: "E1", first_name: "A", last_name: "L", status: "active" }, problems: [{ field: "x", problem: "y" }] }).ok).toBe(
      false,
    );
  });
});

describe("write", () => {
  test("writes in the store's transaction, keeps a sample, and prunes only when no row failed", async () => {
    const store = createMemoryStore();
    await store.createOrganisation({ id: ORG, name: "Org", created_at: 0 } as never);
    const validate = createValidateStage(plan());
    const row = (id: string) => {
      const v = validate({ record: { external_id: id, first_name: "A", last_name: "L", status: "active" }, problems: [] });
      if (!v.ok) throw new Error("invalid");
      return v.row as ImportRow;
    };
    const run = (ids: string[], failed: boolean) =>
      store.runImport(async (writer) => {
        const ctx: ImportContext = {
          writer,
          organisationId: ORG,
          now: 1,
          counts: noCounts(),
          publicHolidays: [],
          keptFields: new Set(),
          fail: () => {},
          failed: () => false,
        };
        const write = createWriteStage({ kind: "employees", prune: { maxPercent: 100 }, describe: true }, ctx);
        await write.start();
        for (const [i, id] of ids.entries()) await write.add(i + 2, row(id));
        return { pruned: await write.finish(ids.length, failed), counts: ctx.counts, sample: write.sample.length };
      });
    expect(await run(["E1", "E2"], false)).toMatchObject({ counts: { created: 2 }, sample: 2, pruned: { ok: true, pruned: 0 } });
    expect(await run(["E1"], true)).toMatchObject({ counts: { unchanged: 1 }, pruned: null });
    expect(await run(["E1"], false)).toMatchObject({ pruned: { ok: true, pruned: 1, listed: [expect.objectContaining({ name: "A L" })] } });
  });
});
