/**
 * The import pipeline end to end on a fresh in-memory store: every format, all-or-nothing
 * with every bad row named as FILE:LINE: field, stable ids and updated_at across
 * re-imports, soft deletes, computed days and public-holiday overrides (docs/cli.md, "The import format").
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDays } from "../lib/dates.ts";
import { derivedId } from "../lib/ids.ts";
import { listHolidays } from "../lib/holidays.ts";
import { employeeJson, leaveBookingJson } from "../lib/records.ts";
import { importFile, importRecords, type ImportKind, type ImportOutcome } from "../scripts/import/import-file.ts";
import { createProgressLine } from "../scripts/import/progress.ts";
import { importColumns } from "../scripts/import/normalise-records.ts";
import { main } from "../scripts/cli.ts";
import type { Io } from "../scripts/cli-kit.ts";
import { createOrganisation, createWorld, type TestWorld } from "./support.ts";
import { openTestStore, testStoreKind } from "./test-stores.ts";
import { sql } from "kysely";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";

const EXAMPLES = join(import.meta.dir, "..", "examples", "import");
const example = (name: string) => join(EXAMPLES, name);
const dir = mkdtempSync(join(tmpdir(), "leaveapi-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
/** Writes `text` to a fresh temporary file with this extension and returns its path. */
function tempFile(extension: string, text: string): string {
  const path = join(dir, `file-${++fileCount}.${extension}`);
  writeFileSync(path, text);
  return path;
}
const jsonl = (records: object[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
const bytes = (text: string) => () =>
  (async function* () {
    yield new TextEncoder().encode(text);
  })();

async function setup() {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const run = (kind: ImportKind, file: string, extra: Partial<Parameters<typeof importFile>[1]> = {}) =>
    importFile(world.store, { organisationId: org, kind, file, now: world.clock.now(), ...extra });
  return { world, org, run };
}

function expectOk(outcome: ImportOutcome) {
  if (!outcome.ok) throw new Error(`import failed:\n${outcome.errors.join("\n")}`);
  return outcome;
}

const employees = (world: TestWorld, org: string) => world.store.listEmployees({ organisationId: org, filters: {}, limit: 500 });
const leave = (world: TestWorld, org: string) =>
  world.store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 500 });

/** The example files, imported in the order a new organisation would. */
async function importExamples(run: Awaited<ReturnType<typeof setup>>["run"]) {
  expectOk(await run("employees", example("employees.jsonl")));
  expectOk(await run("holidays", example("holidays.jsonl")));
  return expectOk(await run("leave", example("leave.jsonl")));
}

describe("formats", () => {
  test("JSONL, CSV, a JSON array and stdin give the same employees", async () => {
    const { world, org, run } = await setup();
    const first = expectOk(await run("employees", example("employees.jsonl")));
    expect(first).toEqual({ ok: true, rows: 3, counts: { created: 3, updated: 0, unchanged: 0, deleted: 0 } });
    const stored = await employees(world, org);
    expect(stored.map((e) => e.first_name).sort()).toEqual(["Ada", "Alan", "Grace"]);
    expect(stored.find((e) => e.first_name === "Grace")?.job_title).toBe("Head of Research, Data");

    const lines = readFileSync(example("employees.jsonl"), "utf8").trim().split("\n");
    const array = tempFile("json", `[\n${lines.join(",\n")}\n]\n`);
    for (const outcome of [
      await run("employees", example("employees.csv")),
      await run("employees", array),
      await run("employees", "-", { stdin: bytes(lines.join("\n")) }),
      await run("employees", "-", { format: "csv", stdin: bytes(readFileSync(example("employees.csv"), "utf8")) }),
      await run("employees", tempFile("txt", readFileSync(example("employees.csv"), "utf8")), { format: "csv" }),
    ]) {
      expect(expectOk(outcome).counts).toEqual({ created: 0, updated: 0, unchanged: 3, deleted: 0 });
    }
    expect(await employees(world, org)).toEqual(stored);
  });

  test("the leave examples in CSV and JSONL are the same bookings", async () => {
    const { world, org, run } = await setup();
    await importExamples(run);
    const before = await leave(world, org);
    world.clock.advance(60_000);
    expect(expectOk(await run("leave", example("leave.csv"))).counts).toEqual({ created: 0, updated: 0, unchanged: 5, deleted: 0 });
    expect(await leave(world, org)).toEqual(before);
  });

  test("a JSON array streams element by element with each element's starting line", async () => {
    const { world, org, run } = await setup();
    const file = tempFile(
      "json",
      '[\n  {"external_id": "A", "first_name": "Ann", "last_name": "Lee", "status": "active"},\n  {\n    "external_id": "B", "first_name": "Bo", "last_name": "Lee",\n    "status": "Active"\n  },\n  {"external_id": "C", "first_name": "Cy", "last_name": "Lee", "status": "active", "start_date": "2026-13-01"}\n]',
    );
    const outcome = await run("employees", file);
    expect(outcome).toMatchObject({
      ok: false,
      invalidRows: 2,
      errors: [
        `${file}:3: status: "Active" is not a status; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": {"Active": "active"}} in a --map file`,
        `${file}:7: start_date: must be a real date YYYY-MM-DD, not "2026-13-01"`,
      ],
    });
    expect(await employees(world, org)).toEqual([]);
  });

  test("a malformed JSON array, an unknown extension and a missing file are file-level errors", async () => {
    const { run } = await setup();
    const open = tempFile("json", '[{"external_id": "A", "status": "active"}');
    expect(await run("employees", open)).toMatchObject({ ok: false, invalidRows: 0, errors: [`${open}: ends before the closing ']' of the array`] });
    const object = tempFile("json", '{"data": []}');
    expect(await run("employees", object)).toMatchObject({
      ok: false,
      errors: [expect.stringMatching(/^.*\.json: is not a JSON array of records: unexpected "\{" on line 1/)],
    });
    const missing = join(dir, "missing.jsonl");
    expect(await run("employees", missing)).toMatchObject({ ok: false, invalidRows: 0, errors: [`${missing}: cannot read: no such file`] });
    const text = tempFile("txt", "");
    expect(await run("employees", text)).toMatchObject({ ok: false, errors: [expect.stringContaining(`${text}: cannot tell the format`)] });
  });

  test("a quoted CSV field spanning lines keeps later rows on their physical lines", async () => {
    const { world, org, run } = await setup();
    const file = tempFile(
      "csv",
      'external_id,first_name,last_name,job_title,status,start_date\r\nA,Ann,Lee,"Engineer,\r\nsecond line\r\nthird line",active,2026-01-05\r\n\r\nB,Bo,Lee,Analyst,active,2026-02-30\r\nC,Cy,Lee,"quoted ""x""",retired!,\r\n',
    );
    const outcome = await run("employees", file);
    expect(outcome).toMatchObject({ ok: false, invalidRows: 2 });
    expect(outcome.ok ? [] : outcome.errors).toEqual([
      `${file}:6: start_date: must be a real date YYYY-MM-DD, not "2026-02-30"`,
      `${file}:7: status: "retired!" is not a status; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": {"retired!": "active"}} in a --map file`,
    ]);
    expect(await employees(world, org)).toEqual([]);
  });

  test("CSV leave types come from leave_type_* columns and their errors name those columns", async () => {
    const { world, org, run } = await setup();
    expectOk(await run("employees", example("employees.csv")));
    const header = "external_id,employee_external_id,leave_type_name,leave_type_category,leave_type_is_paid,start_date,end_date,days,status";
    const file = tempFile(
      "csv",
      `${header}\nB1,E001,,Annual,yes,2026-03-02,2026-03-02,0.5,approved\nB2,E001,Annual leave,annual,False,2026-03-02,2026-03-03,,approved\n`,
    );
    const outcome = await run("leave", file);
    expect(outcome.ok ? [] : outcome.errors).toEqual([
      `${file}:2: leave_type_name: is required`,
      `${file}:2: leave_type_category: "Annual" is not a category; categories are lower-case letters and "_" (at most 30) such as annual or sick; map it under "values", e.g. "values": {"leave_type_category": {"Annual": "annual"}} in a --map file`,
      `${file}:2: leave_type_is_paid: must be true or false, not "yes"`,
      `${file}:2: days: 0.5 includes half a day, but neither start_half_day nor end_half_day is true; mark the half day (start_half_day true and start_half_period am or pm, or the same for the end), or leave days out to have it worked out`,
    ]);
    const good = tempFile("csv", `${header}\nB2,E001,Annual leave,annual,False,2026-03-02,2026-03-03,,approved\n`);
    expectOk(await run("leave", good));
    expect((await leave(world, org))[0]).toMatchObject({ days: 2, leave_type: { name: "Annual leave", is_paid: false } });
  });

  test("a CSV row with the wrong number of fields is an error on its line", async () => {
    const { run } = await setup();
    const file = tempFile("csv", "external_id,first_name,last_name,status\nA,Ann,Lee,active\nB,Bo,Lee,active,extra\n");
    expect(await run("employees", file)).toMatchObject({ ok: false, invalidRows: 1, errors: [`${file}:3: row: has 5 fields; the header has 4`] });
  });
});

describe("all or nothing", () => {
  test("one bad row writes nothing and is named FILE:LINE: field", async () => {
    const { world, org, run } = await setup();
    const file = tempFile(
      "jsonl",
      jsonl([
        { external_id: "A", first_name: "Ann", last_name: "Lee", status: "active" },
        { external_id: "B", first_name: "Bo", last_name: "Lee", status: "active", holiday_calendar: "gb-eng" },
        { external_id: "C", first_name: "Cy", last_name: "Lee", status: "active" },
      ]),
    );
    const outcome = await run("employees", file);
    expect(outcome).toMatchObject({
      ok: false,
      invalidRows: 1,
      errors: [
        `${file}:2: holiday_calendar: must be a calendar key like GB or GB-ENG (a country in two capital letters, and for a region a dash and two or three more), not "gb-eng"`,
      ],
    });
    expect(await employees(world, org)).toEqual([]);
  });

  test("every bad row is reported, across batches and checks against the store", async () => {
    const { world, org, run } = await setup();
    expectOk(await run("employees", example("employees.jsonl")));
    const booking = (i: number) => ({
      external_id: `L${i}`,
      employee_external_id: "E001",
      leave_type: { name: "Annual leave", category: "annual", is_paid: true },
      start_date: "2026-03-02",
      end_date: "2026-03-02",
      status: "approved",
    });
    const records: object[] = Array.from({ length: 1200 }, (_, i) => booking(i));
    records[2] = { ...booking(2), end_date: "2026-03-01", start_half_day: true };
    records[699] = { ...booking(699), employee_external_id: "NOBODY" };
    records[1100] = { ...booking(1100), leave_type: { name: "Annual leave", category: "annual", is_paid: false } };
    records[1150] = { ...booking(1150), colour: "blue", days: 0.3 };
    const file = tempFile("jsonl", jsonl(records));
    const outcome = await run("leave", file);
    expect(outcome.ok ? [] : outcome.errors).toEqual([
      `${file}:3: end_date: is before start_date 2026-03-02`,
      `${file}:3: start_half_period: is required (am or pm) when start_half_day is true`,
      `${file}:700: employee_id: no employee with external_id "NOBODY" in this organisation (or it is deleted): import employees first`,
      `${file}:1101: leave_type: "Annual leave", category annual, unpaid differs from the same leave type (id ${derivedId(org, "leave_type", "Annual leave")}) on line 1: "Annual leave", category annual, paid`,
      `${file}:1151: colour: unknown field; the fields are id, external_id, employee_id, employee_external_id, leave_type, start_date, end_date, start_half_day, start_half_period, end_half_day, end_half_period, days, status, requested_at, reviewed_at, cancelled_at, deleted, updated_at; to leave it out, set "ignore_unmapped": true in a --map file, or name it under "columns": {"colour": null}`,
      `${file}:1151: days: must be a multiple of 0.5, at least 0`,
    ]);
    expect(outcome).toMatchObject({ invalidRows: 4 });
    expect(await leave(world, org)).toEqual([]);
  });

  test("unknown fields are refused, with a hint for a likely typo; updated_at is ignored", async () => {
    const { world, org, run } = await setup();
    const typo = tempFile("jsonl", jsonl([{ external_id: "A", status: "active", frist_name: "Ada", last_name: "Lovelace" }]));
    // The misspelt column leaves the record without its first_name, which is required too.
    expect(await run("employees", typo)).toMatchObject({
      ok: false,
      invalidRows: 1,
      errors: [`${typo}:1: frist_name: unknown field; did you mean first_name?`, `${typo}:1: first_name: is required and must not be empty`],
    });
    const nested = tempFile(
      "jsonl",
      jsonl([
        {
          external_id: "L",
          employee_external_id: "A",
          leave_type: { name: "x", category: "annual", is_paid: true, is_payed: true },
          start_date: "2026-01-05",
          end_date: "2026-01-05",
          status: "approved",
        },
      ]),
    );
    expect(await run("leave", nested)).toMatchObject({ ok: false, errors: [`${nested}:1: leave_type.is_payed: unknown field; did you mean is_paid?`] });
    const exported = tempFile(
      "jsonl",
      jsonl([{ external_id: "A", first_name: "Ann", last_name: "Lee", status: "active", updated_at: "2026-03-01T09:30:00.000Z" }]),
    );
    expectOk(await run("employees", exported));
    expect((await employees(world, org))[0]?.updated_at).toBe(world.clock.now());
  });

  test("a booking of an unknown or deleted employee is an error on employee_id", async () => {
    const { org, run } = await setup();
    expectOk(await run("employees", tempFile("jsonl", jsonl([{ external_id: "GONE", first_name: "Ann", last_name: "Lee", status: "active" }]))));
    expectOk(await run("employees", tempFile("jsonl", jsonl([{ external_id: "GONE", deleted: true }]))));
    const someone = derivedId(org, "employee", "SOMEONE");
    const file = tempFile(
      "jsonl",
      jsonl([
        { id: "L1", employee_external_id: "GONE" },
        {
          external_id: "L1",
          employee_external_id: "GONE",
          leave_type: { name: "Annual leave", category: "annual", is_paid: true },
          start_date: "2026-03-02",
          end_date: "2026-03-02",
          status: "approved",
        },
        {
          external_id: "L2",
          employee_id: someone.toUpperCase(),
          leave_type: { name: "Annual leave", category: "annual", is_paid: true },
          start_date: "2026-03-02",
          end_date: "2026-03-02",
          status: "approved",
        },
      ]),
    );
    const outcome = await run("leave", file);
    expect(outcome.ok ? [] : outcome.errors).toEqual([
      `${file}:1: id: must be a UUID, not "L1"`,
      `${file}:1: leave_type: is required`,
      `${file}:1: start_date: is required`,
      `${file}:1: end_date: is required`,
      `${file}:1: status: is required`,
      `${file}:2: employee_id: no employee with external_id "GONE" in this organisation (or it is deleted): import employees first`,
      `${file}:3: employee_id: no employee with id ${someone} in this organisation (or it is deleted): import employees first`,
    ]);
  });
});

describe("ids and updated_at", () => {
  test("external ids give the same UUIDv5 on every import, distinct per organisation", async () => {
    const { world, org, run } = await setup();
    expectOk(await run("employees", example("employees.jsonl")));
    const ids = (await employees(world, org)).map((e) => e.id).sort();
    expect(ids).toEqual(["E001", "E002", "E003"].map((x) => derivedId(org, "employee", x)).sort());
    expectOk(await run("employees", example("employees.csv")));
    expect((await employees(world, org)).map((e) => e.id).sort()).toEqual(ids);
    const other = await createOrganisation(world, "Other Ltd");
    expectOk(await importFile(world.store, { organisationId: other, kind: "employees", file: example("employees.jsonl"), now: world.clock.now() }));
    const otherIds = (await employees(world, other)).map((e) => e.id);
    expect(otherIds.some((id) => ids.includes(id))).toBe(false);
  });

  test("an identical re-import changes no updated_at; a real change moves only its record", async () => {
    const { world, org, run } = await setup();
    await importExamples(run);
    const t1 = world.clock.now();
    world.clock.advance(3_600_000);
    expectOk(await run("employees", example("employees.csv")));
    expectOk(await run("holidays", example("holidays.jsonl")));
    const again = expectOk(await run("leave", example("leave.jsonl")));
    expect(again.counts).toEqual({ created: 0, updated: 0, unchanged: 5, deleted: 0 });
    expect((await employees(world, org)).every((e) => e.updated_at === t1)).toBe(true);
    expect((await leave(world, org)).every((b) => b.updated_at === t1)).toBe(true);

    const changed = readFileSync(example("employees.jsonl"), "utf8").replace('"job_title": "Analyst"', '"job_title": "Senior analyst"');
    expect(expectOk(await run("employees", tempFile("jsonl", changed))).counts).toEqual({ created: 0, updated: 1, unchanged: 2, deleted: 0 });
    const byName = new Map((await employees(world, org)).map((e) => [e.first_name, e.updated_at]));
    expect([byName.get("Alan"), byName.get("Ada"), byName.get("Grace")]).toEqual([world.clock.now(), t1, t1]);
  });

  test("what the API returns can be imported again; a second time it changes nothing", async () => {
    const { world, org, run } = await setup();
    await importExamples(run);
    const holidays = await listHolidays(world.store, org, { from: "2026-01-01", to: "2026-12-31" });
    const exported = {
      employees: jsonl((await employees(world, org)).map(employeeJson)),
      leave: jsonl((await leave(world, org)).map(leaveBookingJson)),
      holidays: jsonl(holidays.filter((h) => h.type === "company" || h.calendar === "GB-SCT")),
    };
    const counts = async (kind: ImportKind) => expectOk(await run(kind, tempFile("jsonl", exported[kind as keyof typeof exported]))).counts;
    // The API does not return external_id, so the first import of its output clears it.
    for (const kind of ["employees", "leave", "holidays"] as const) await counts(kind);
    const t1 = world.clock.now();
    world.clock.advance(60_000);
    expect(await counts("employees")).toEqual({ created: 0, updated: 0, unchanged: 3, deleted: 0 });
    expect(await counts("leave")).toEqual({ created: 0, updated: 0, unchanged: 4, deleted: 0 });
    expect(await counts("holidays")).toEqual({ created: 0, updated: 0, unchanged: 16, deleted: 0 });
    expect((await employees(world, org)).every((e) => e.updated_at === t1)).toBe(true);
    expect((await leave(world, org)).every((b) => b.updated_at === t1)).toBe(true);
    expect(await listHolidays(world.store, org, { from: "2026-01-01", to: "2026-12-31" })).toEqual(holidays);
  });

  test("closure days are deleted by id or by what they are; holiday rows refuse the other type's fields", async () => {
    const { world, org, run } = await setup();
    const id = "5A0C6F0E-1D2B-4C3A-8B7E-6F5D4C3B2A10";
    expectOk(await run("holidays", tempFile("jsonl", jsonl([{ type: "company", id, date: "2026-08-14", name: "Summer closure" }]))));
    const company = () => listHolidays(world.store, org, { from: "2026-01-01", to: "2026-12-31", type: "company" });
    expect(await company()).toEqual([
      {
        date: "2026-08-14",
        name: "Summer closure",
        type: "company",
        calendar: null,
        applies_to: "all",
        deducts_from_leave: false,
        department: null,
        location: null,
      },
    ]);
    expectOk(await run("holidays", tempFile("jsonl", jsonl([{ type: "company", id: id.toLowerCase(), deleted: true }]))));
    expect(await company()).toEqual([]);

    const file = tempFile(
      "jsonl",
      jsonl([
        { type: "company", date: "2026-08-14", name: "Closed", calendar: "GB-ENG", location: "Leeds" },
        { type: "public", id, calendar: "GB-ENG", date: "2026-08-14", name: "Extra", applies_to: "all", department: "Sales" },
        { type: "holiday", date: "2026-08-14" },
        { type: "public", calendar: "GB-ENG", date: "2026-08-15" },
      ]),
    );
    const outcome = await run("holidays", file);
    expect(outcome.ok ? [] : outcome.errors).toEqual([
      `${file}:1: calendar: must be null on a company closure day`,
      `${file}:1: location: must be null unless applies_to is location`,
      `${file}:2: id: must be absent: public holidays have no id`,
      `${file}:2: applies_to: must be "calendar" or null on a public holiday`,
      `${file}:2: department: must be null on a public holiday`,
      `${file}:3: type: must be "company" or "public", not "holiday"; map the file's words under "values", e.g. "values": {"type": {"holiday": "…"}} in a --map file`,
      `${file}:4: name: is required`,
    ]);
  });

  test("renaming a leave type bumps the updated_at of its bookings", async () => {
    const { world, org, run } = await setup();
    expectOk(await run("employees", example("employees.jsonl")));
    const typeId = "0C1D2E3F-0000-4000-8000-000000000001";
    const file = (name: string) =>
      tempFile(
        "csv",
        `external_id,employee_external_id,leave_type_id,leave_type_name,leave_type_category,leave_type_is_paid,start_date,end_date,status\nB1,E001,${typeId},${name},annual,TRUE,2026-03-02,2026-03-03,approved\n`,
      );
    expectOk(await run("leave", file("Holiday")));
    const t1 = world.clock.now();
    world.clock.advance(1000);
    expectOk(await run("leave", file("Holiday")));
    expect((await leave(world, org))[0]).toMatchObject({ updated_at: t1, leave_type: { id: typeId.toLowerCase(), name: "Holiday" } });
    world.clock.advance(1000);
    const renamed = expectOk(await run("leave", file("Annual leave")));
    expect(renamed.counts.unchanged).toBe(1);
    expect((await leave(world, org))[0]).toMatchObject({ updated_at: world.clock.now(), leave_type: { name: "Annual leave" } });
  });

  test("deleted: true soft-deletes employees, bookings and closure days", async () => {
    const { world, org, run } = await setup();
    await importExamples(run);
    world.clock.advance(1000);
    const outcome = await run(
      "leave",
      tempFile(
        "jsonl",
        jsonl([
          { external_id: "LV-1001", deleted: true },
          { external_id: "LV-1001", deleted: true },
          { external_id: "NEVER", deleted: true },
        ]),
      ),
    );
    expect(expectOk(outcome).counts).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 1 });
    expect((await leave(world, org)).map((b) => b.id)).not.toContain(derivedId(org, "leave", "LV-1001"));
    expect(await leave(world, org)).toHaveLength(3);

    expectOk(await run("employees", tempFile("csv", "external_id,status,deleted\nE002,,true\n")));
    expect((await employees(world, org)).map((e) => e.first_name).sort()).toEqual(["Ada", "Alan"]);
    expect((await leave(world, org)).some((b) => b.employee_id === derivedId(org, "employee", "E002"))).toBe(false);

    const closure = { type: "company", date: "2026-12-24", name: "Christmas Eve closure", applies_to: "all", deleted: true };
    expectOk(await run("holidays", tempFile("jsonl", jsonl([closure]))));
    const company = await listHolidays(world.store, org, { from: "2026-12-01", to: "2026-12-31", type: "company" });
    expect(company.map((h) => h.name)).toEqual(["New Year's Eve closure"]);

    // Imported again, the deleted employee comes back.
    expectOk(await run("employees", example("employees.jsonl")));
    expect(await employees(world, org)).toHaveLength(3);
  });
});

describe("large files", () => {
  const annual = { name: "Annual leave", category: "annual", is_paid: true };
  const booking = (i: number, extra: object = {}) => ({
    external_id: `B${i}`,
    employee_external_id: `E00${1 + (i % 3)}`,
    leave_type: annual,
    start_date: addDays("2026-01-05", i % 300),
    end_date: addDays("2026-01-05", (i % 300) + (i % 4)),
    status: "approved",
    ...extra,
  });
  const allLeave = (world: TestWorld, org: string) =>
    world.store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 5000 });

  test("a booking repeated, deleted and imported again batches later ends as its last row says", async () => {
    const { world, org, run } = await setup();
    expectOk(await run("employees", example("employees.jsonl")));
    const first = Array.from({ length: 1200 }, (_, i) => booking(i));
    // After 200 new rows of the third batch: nothing has made the import write the earlier ones yet.
    const later = [{ external_id: "B7", deleted: true }, booking(7), booking(5, { status: "cancelled" }), booking(8)];
    const outcome = expectOk(await run("leave", tempFile("jsonl", jsonl([...first, ...later]))));
    // B7 deleted and imported again is created afresh (docs/api.md, "Personal data": a deleted booking keeps nothing).
    expect(outcome.counts).toEqual({ created: 1201, updated: 1, unchanged: 1, deleted: 1 });
    const stored = await allLeave(world, org);
    expect(stored).toHaveLength(1200);
    const byId = new Map(stored.map((b) => [b.id, b]));
    expect(byId.get(derivedId(org, "leave", "B5"))?.status).toBe("cancelled");
    expect(byId.get(derivedId(org, "leave", "B7"))?.status).toBe("approved");

    const t1 = world.clock.now();
    world.clock.advance(60_000);
    first[5] = booking(5, { status: "cancelled" });
    expect(expectOk(await run("leave", tempFile("jsonl", jsonl(first)))).counts).toEqual({ created: 0, updated: 0, unchanged: 1200, deleted: 0 });
    expect((await allLeave(world, org)).every((b) => b.updated_at === t1)).toBe(true);
  });
  // The SQLite store's bulk path (adapters/sql/staged-inserts.ts); Postgres writes as it reads, and three imports of 12,000 rows there take seconds.
  test.skipIf(testStoreKind !== "sqlite")(
    "a first import large enough to build the indexes afresh lands whole, indexes and all, and one that fails leaves them as they were",
    async () => {
      const { world, org, run } = await setup();
      expectOk(await run("employees", example("employees.jsonl")));
      const indexes = () => indexSql(world);
      const before = await indexes();
      // Over the 10,000 staged rows from which the SQLite store rebuilds the table's indexes (adapters/sql/staged-inserts.ts).
      const many = Array.from({ length: 12_000 }, (_, i) => booking(i));
      // The row seen again has the staged ones inserted, and the indexes rebuilt, a batch before the bad row.
      const more = Array.from({ length: 600 }, (_, i) => booking(20_000 + i));
      const failing = await run(
        "leave",
        tempFile("jsonl", jsonl([...many, booking(5, { status: "cancelled" }), ...more, { ...booking(1), start_date: "2026-13-01" }])),
      );
      expect(failing.ok).toBe(false);
      expect(await allLeave(world, org)).toHaveLength(0);
      expect(await indexes()).toEqual(before);

      const outcome = expectOk(await run("leave", tempFile("jsonl", jsonl([...many, booking(5, { status: "cancelled" }), booking(12_345)]))));
      expect(outcome.counts).toEqual({ created: 12_001, updated: 1, unchanged: 0, deleted: 0 });
      expect(await indexes()).toEqual(before);
      const stored = await world.store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 500 });
      expect(stored.find((b) => b.id === derivedId(org, "leave", "B5"))?.status).toBe("cancelled");
      expect(expectOk(await run("leave", tempFile("jsonl", jsonl(many)))).counts).toEqual({ created: 0, updated: 1, unchanged: 11_999, deleted: 0 });
    },
  );
});

// A SQLite file's two connections (WAL); the rebuild is the SQLite store's (adapters/sql/staged-inserts.ts).
test.skipIf(testStoreKind !== "sqlite")(
  "during a first large import, which rebuilds the booking indexes, a reader on another connection keeps reading what was committed",
  async () => {
    const file = join(dir, "concurrent.sqlite");
    const world = await createWorld({ filename: file });
    const reader = await openTestStore({ filename: file });
    const [other, org] = [await createOrganisation(world, "Other Ltd"), await createOrganisation(world)];
    const run = (organisationId: string, kind: ImportKind, path: string) =>
      importFile(world.store, { organisationId, kind, file: path, now: world.clock.now() });
    const annual = { name: "Annual leave", category: "annual", is_paid: true };
    const booking = (i: number) => ({
      external_id: `B${i}`,
      employee_external_id: "E001",
      leave_type: annual,
      start_date: addDays("2026-01-05", i % 300),
      end_date: addDays("2026-01-05", i % 300),
      status: "approved",
    });
    for (const id of [other, org]) expectOk(await run(id, "employees", example("employees.jsonl")));
    expectOk(await run(other, "leave", tempFile("jsonl", jsonl(Array.from({ length: 50 }, (_, i) => booking(i))))));
    const read = async () =>
      (await reader.listOverlappingLeave({ organisationId: other, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 500 })).length;
    let reading = true;
    const counts: number[] = [];
    const reads = (async () => {
      while (reading) {
        counts.push(await read());
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    expectOk(await run(org, "leave", tempFile("jsonl", jsonl(Array.from({ length: 12_000 }, (_, i) => booking(i))))));
    reading = false;
    await reads;
    expect(counts.length).toBeGreaterThan(0);
    expect(new Set(counts)).toEqual(new Set([50]));
    expect(await reader.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-05", to: "2026-01-05" }, limit: 500 })).toHaveLength(40);
  },
);

/** The SQL of the leave-booking table's indexes (SQLite). */
async function indexSql(world: TestWorld): Promise<string[]> {
  const { rows } = await sql<{
    sql: string;
  }>`select sql from sqlite_master where tbl_name = 'leave_bookings' and type = 'index' and sql is not null order by name`.execute(
    sqlConnectionOf(world.store),
  );
  return rows.map((r) => r.sql);
}

describe("days and holidays", () => {
  test("days left out are computed: weekdays less bank holidays, applicable closures and half days", async () => {
    const { world, org, run } = await setup();
    await importExamples(run);
    const days = new Map((await leave(world, org)).map((b) => [b.id, b.days]));
    const of = (x: string) => days.get(derivedId(org, "leave", x));
    expect(of("LV-1001")).toBe(6); // 8 weekdays less Good Friday and Easter Monday (GB-ENG)
    expect(of("LV-1002")).toBe(1.5); // Wednesday pm, Thursday, Friday is the Engineering offsite
    expect(of("LV-2001")).toBe(4); // Glasgow Fair Monday comes from the imported GB-SCT 2026 set
    expect(of("LV-3001")).toBe(5); // given in the file

    const other = tempFile(
      "jsonl",
      jsonl([
        {
          external_id: "X1",
          employee_external_id: "E002",
          leave_type: { name: "Annual leave", category: "annual", is_paid: true },
          start_date: "2026-06-12",
          end_date: "2026-06-12",
          status: "approved",
        },
        {
          external_id: "X2",
          employee_external_id: "E001",
          leave_type: { name: "Annual leave", category: "annual", is_paid: true },
          start_date: "2026-12-23",
          end_date: "2027-01-04",
          end_half_day: true,
          end_half_period: "am",
          status: "approved",
        },
      ]),
    );
    expectOk(await run("leave", other));
    const more = new Map(
      (await world.store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-06-01", to: "2027-01-31" }, limit: 50 })).map((b) => [
        b.id,
        b.days,
      ]),
    );
    // The Engineering offsite does not apply to Research.
    expect(more.get(derivedId(org, "leave", "X1"))).toBe(1);
    // 23rd (1); 24th and 31st are closures; 25th, 28th and 1 Jan are bank holidays; 29th, 30th (2); 2nd Jan is a Saturday; 4th am (0.5).
    expect(more.get(derivedId(org, "leave", "X2"))).toBe(3.5);
  });

  test("a public-holiday import replaces the shipped set for that calendar and year, for that organisation only", async () => {
    const { world, org, run } = await setup();
    const other = await createOrganisation(world, "Other Ltd");
    const scotland = (organisationId: string, year: number) =>
      listHolidays(world.store, organisationId, { from: `${year}-01-01`, to: `${year}-12-31`, calendar: "GB-SCT" }).then((hs) => hs.map((h) => h.name));
    const shipped2026 = await scotland(org, 2026);
    const shipped2027 = await scotland(org, 2027);
    expect(shipped2026).not.toContain("Glasgow Fair Monday");

    const outcome = expectOk(await run("holidays", example("holidays.jsonl")));
    expect(outcome.counts).toEqual({ created: 16, updated: 0, unchanged: 0, deleted: 0 });
    const imported = await scotland(org, 2026);
    expect(imported).toHaveLength(12);
    expect(imported).toContain("Glasgow Fair Monday");
    expect(await scotland(org, 2027)).toEqual(shipped2027);
    expect(await scotland(other, 2026)).toEqual(shipped2026);

    // Every row of the set deleted: the override is gone and the shipped set is back.
    const lines = readFileSync(example("holidays.jsonl"), "utf8")
      .trim()
      .split("\n")
      .filter((l) => l.includes('"public"'));
    const cleared = lines.map((l) => ({ ...JSON.parse(l), deleted: true }));
    expect(expectOk(await run("holidays", tempFile("jsonl", jsonl(cleared)))).counts).toEqual({ created: 0, updated: 0, unchanged: 0, deleted: 12 });
    expect(await scotland(org, 2026)).toEqual(shipped2026);
  });

  test("the same calendar and date twice in one file is an error on the later row", async () => {
    const { run } = await setup();
    const file = tempFile(
      "csv",
      "type,calendar,date,name,applies_to,department\npublic,GB-ENG,2026-01-01,New Year,,\ncompany,,2026-01-02,Closed,department,\npublic,GB-ENG,2026-01-01,New Year again,,\n",
    );
    const outcome = await run("holidays", file);
    expect(outcome.ok ? [] : outcome.errors).toEqual([
      `${file}:3: department: is required when applies_to is department`,
      `${file}:4: date: GB-ENG 2026-01-01 is already on line 2`,
    ]);
  });
});

describe("importRecords", () => {
  test("takes records from any iterable and reports progress", async () => {
    const { world, org } = await setup();
    const seen: number[] = [];
    const outcome = await importRecords(world.store, {
      organisationId: org,
      kind: "employees",
      label: "memory",
      records: [
        { line: 10, record: { external_id: "A", first_name: "Ann", last_name: "Lee", status: "active" } },
        { line: 11, record: [1, 2] },
      ],
      onProgress: (rows) => seen.push(rows),
    });
    expect(outcome).toMatchObject({ ok: false, invalidRows: 1, errors: ["memory:11: row: must be an object of fields"] });
    expect(seen).toEqual([1, 2]);
  });
});

describe("progress line", () => {
  test("redraws in place at most every 200 ms and is erased at the end", () => {
    const written: string[] = [];
    let t = 0;
    const line = createProgressLine(
      (text) => written.push(text),
      () => t,
    );
    t = 1000;
    line.update(500);
    t = 1100;
    line.update(600);
    t = 2000;
    line.update(1500);
    line.done();
    expect(written).toEqual(["\r\x1b[K500 rows read (500 rows/s)", "\r\x1b[K1,500 rows read (750 rows/s)", "\r\x1b[K"]);
  });

  test("importFile draws only through the writer it is given, and clears it", async () => {
    const { run } = await setup();
    const written: string[] = [];
    expectOk(await run("employees", example("employees.csv"), { progress: (text) => written.push(text) }));
    const size = readFileSync(example("employees.csv")).length;
    expect(written[0]).toMatch(new RegExp(`^\r\x1b\\[K${size} B of ${size} B \\(100%\\), [\\d.]+ [kMG]?B/s, 0:00 left, 1 rows$`));
    expect(written.at(-1)).toBe("\r\x1b[K");
  });

  test("with the bytes read and the size known: bytes of the total, percentage, rate and time left; without the size, bytes and rate", () => {
    const written: string[] = [];
    let t = 0;
    const sized = createProgressLine(
      (text) => written.push(text),
      () => t,
      undefined,
      50_000_000,
    );
    t = 2000;
    sized.update(40_000, 10_000_000);
    t = 4000;
    sized.update(80_000, 20_000_000);
    const unsized = createProgressLine(
      (text) => written.push(text),
      () => t,
    );
    t = 5000;
    unsized.update(1_000, 3_500);
    expect(written).toEqual([
      "\r\x1b[K10.0 MB of 50.0 MB (20%), 5.0 MB/s, 0:08 left, 40,000 rows",
      "\r\x1b[K20.0 MB of 50.0 MB (40%), 5.0 MB/s, 0:06 left, 80,000 rows",
      "\r\x1b[K3.5 kB read, 3.5 kB/s, 1,000 rows",
    ]);
  });
});

describe("leaveapi import", () => {
  function fakeIo(stdin = "") {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t), errIsTty: false, env: {}, stdin: bytes(stdin) };
    return { io, out, err };
  }

  test("prints every error, then one summary line, and exits 1; success prints counts", async () => {
    const db = join(dir, "cli.sqlite");
    const created = fakeIo();
    expect(await main(["--db", db, "--json", "org", "create", "--name", "Acme"], created.io)).toBe(0);
    const org = (JSON.parse(created.out[0]!) as { id: string }).id;

    const bad = fakeIo(
      '{"external_id": "A", "first_name": "Ann", "last_name": "Lee"}\n\n{"external_id": "B", "first_name": "Bo", "last_name": "Lee", "status": "active", "colour": "red"}\n',
    );
    expect(await main(["--db", db, "import", "--org", org, "--kind", "employees", "-"], bad.io)).toBe(1);
    expect(bad.err).toEqual([
      "stdin:1: status: is required",
      `stdin:3: colour: unknown field; the fields are ${importColumns("employees", false).join(", ")}; to leave it out, set "ignore_unmapped": true in a --map file, or name it under "columns": {"colour": null}`,
      "leaveapi: import failed: 2 problems in 2 rows; nothing was written",
    ]);

    const good = fakeIo();
    expect(await main(["--db", db, "--json", "import", "--org", org, "--kind", "employees", example("employees.csv")], good.io)).toBe(0);
    expect(JSON.parse(good.out[0]!)).toEqual({ ok: true, dry_run: false, rows: 3, created: 3, updated: 0, unchanged: 0, deleted: 0, public_holidays: [] });

    const missing = fakeIo();
    expect(await main(["--db", db, "import", "--org", org, "--kind", "employees", join(dir, "nope.csv")], missing.io)).toBe(1);
    expect(missing.err).toEqual([`${join(dir, "nope.csv")}: cannot read: no such file`, "leaveapi: import failed: 1 problem; nothing was written"]);
  });

  test("bad usage exits 2; an unknown organisation exits 1", async () => {
    const db = join(dir, "cli-usage.sqlite");
    for (const args of [
      ["--kind", "employees", "x.csv"],
      ["--org", "x", "--kind", "people", "x.csv"],
      ["--org", "x", "--kind", "leave"],
      ["--org", "x", "--kind", "leave", "--format", "xml", "x"],
    ]) {
      const { io, err } = fakeIo();
      expect(await main(["--db", db, "import", ...args], io)).toBe(2);
      expect(err[0]).toStartWith("leaveapi: ");
    }
    const { io, err } = fakeIo();
    expect(await main(["--db", db, "import", "--org", crypto.randomUUID(), "--kind", "leave", "x.csv"], io)).toBe(1);
    expect(err[0]).toStartWith("leaveapi: no organisation with id");
  });
});
