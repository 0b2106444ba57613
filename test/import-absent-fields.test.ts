/**
 * Absent is not empty (DECISIONS §11, docs/cli.md): a field the file does not carry keeps
 * the stored value on update and is null on a new record; an empty cell or null clears it.
 * The first test is the old trap of issue 37: a re-import of a few keys erased the rest.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { main } from "../scripts/cli.ts";
import { NO_MAP, type ImportMap } from "../scripts/import/import-map.ts";
import type { Io } from "../scripts/cli-kit.ts";
import { importSetup, landed, scratchFiles } from "./import-kit.ts";

const { dir, file } = scratchFiles("absent");
const noStdin = () => (async function* (): AsyncGenerator<Uint8Array> {})();
const jsonl = (records: object[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;

const GRACE = {
  external_id: "E002",
  first_name: "Grace",
  last_name: "Hopper",
  job_title: "Rear Admiral",
  department: "Navy",
  status: "active",
  start_date: "2019-03-01",
  holiday_calendar: "US",
};

async function setup() {
  const { world, org, run } = await importSetup();
  const grace = async () => (await world.store.listEmployees({ organisationId: org, filters: {}, limit: 10 }))[0]!;
  return { world, org, run, grace };
}

const ok = landed;

test("the old trap: re-importing a record of a few keys keeps the job title, department, start date and calendar", async () => {
  const { run, grace } = await setup();
  ok(await run("employees", file("jsonl", jsonl([GRACE]))));
  const partial = { external_id: "E002", first_name: "Grace", last_name: "Hopper-Murray", status: "active" };
  const dry = ok(await run("employees", file("jsonl", jsonl([partial])), { dryRun: true }));
  // The dry run names the stored fields the file does not carry.
  expect(dry.kept?.sort()).toEqual(["department", "holiday_calendar", "job_title", "leaving_date", "preferred_name", "start_date"]);
  const outcome = ok(await run("employees", file("jsonl", jsonl([partial]))));
  expect(outcome.counts).toEqual({ created: 0, updated: 1, unchanged: 0, deleted: 0 });
  expect(await grace()).toMatchObject({
    last_name: "Hopper-Murray",
    job_title: "Rear Admiral",
    department: "Navy",
    start_date: "2019-03-01",
    holiday_calendar: "US",
  });
});

test("null in JSON and an empty CSV cell clear a field; a column the CSV does not have keeps it", async () => {
  const { run, grace } = await setup();
  ok(await run("employees", file("jsonl", jsonl([GRACE]))));
  ok(await run("employees", file("jsonl", jsonl([{ ...GRACE, job_title: null }]))));
  expect(await grace()).toMatchObject({ job_title: null, department: "Navy" });
  ok(await run("employees", file("csv", "external_id,first_name,last_name,status,department\nE002,Grace,Hopper,active,\n")));
  expect(await grace()).toMatchObject({ department: null, start_date: "2019-03-01", holiday_calendar: "US" });
});

test("a new record without a field gets null; an unchanged partial re-import changes nothing", async () => {
  const { run, grace } = await setup();
  const partial = { external_id: "E002", first_name: "Grace", last_name: "Hopper", status: "active" };
  const created = ok(await run("employees", file("jsonl", jsonl([partial]))));
  // Nothing stored yet: nothing was kept.
  expect(created.kept).toBeUndefined();
  expect(await grace()).toMatchObject({ job_title: null, department: null, start_date: null });
  ok(await run("employees", file("jsonl", jsonl([GRACE]))));
  const again = ok(await run("employees", file("jsonl", jsonl([{ ...partial, job_title: "Rear Admiral" }]))));
  expect(again.counts).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 0 });
});

test("leaveapi import says which stored fields the file does not carry", async () => {
  const db = join(dir, "cli.sqlite");
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), errIsTty: false, env: {}, stdin: noStdin } satisfies Io };
  };
  const created = io();
  expect(await main(["--db", db, "--json", "org", "create", "--name", "Acme"], created.io)).toBe(0);
  const org = (JSON.parse(created.out[0]!) as { id: string }).id;
  const first = io();
  expect(await main(["--db", db, "import", "--org", org, "--kind", "employees", file("jsonl", jsonl([GRACE]))], first.io)).toBe(0);
  const dry = io();
  const path = file("csv", "external_id,first_name,last_name,status\nE002,Grace,Hopper,active\n");
  expect(await main(["--db", db, "import", "--org", org, "--kind", "employees", "--dry-run", path], dry.io)).toBe(0);
  expect(dry.err).toEqual([]);
  expect(dry.out.join("\n")).toContain(
    "not in the file, so they would keep their stored values: preferred_name, job_title, department, start_date, leaving_date, holiday_calendar (an empty cell or null clears a field)",
  );
  const json = io();
  expect(await main(["--db", db, "--json", "import", "--org", org, "--kind", "employees", path], json.io)).toBe(0);
  expect(JSON.parse(json.out[0]!)).toMatchObject({
    updated: 0,
    unchanged: 1,
    kept_fields: ["preferred_name", "job_title", "department", "start_date", "leaving_date", "holiday_calendar"],
  });
});

test("through a --map: an empty cell clears its field, a column the export does not have keeps it", async () => {
  const { run, grace } = await setup();
  ok(await run("employees", file("jsonl", jsonl([GRACE]))));
  const map = { columns: { "Personal-ID": "external_id", Vorname: "first_name", Nachname: "last_name", Status: "status", Abteilung: "department" } };
  const csv = file("csv", "Personal-ID;Vorname;Nachname;Status;Abteilung\nE002;Grace;Hopper;active;\n");
  ok(await run("employees", csv, { map: { ...NO_MAP, ...map, delimiter: ";" } as ImportMap }));
  expect(await grace()).toMatchObject({ department: null, job_title: "Rear Admiral", start_date: "2019-03-01" });
});

test("a booking re-imported without its half-day and review columns keeps them, and its days are worked out with the kept half day", async () => {
  const { run, world, org } = await setup();
  ok(await run("employees", file("jsonl", jsonl([GRACE]))));
  const booking = {
    external_id: "L1",
    employee_external_id: "E002",
    leave_type: { name: "Annual leave", category: "annual", is_paid: true },
    start_date: "2026-03-02",
    end_date: "2026-03-04",
    start_half_day: true,
    start_half_period: "pm",
    status: "approved",
    requested_at: "2026-02-01T09:00:00Z",
    reviewed_at: "2026-02-02T09:00:00Z",
  };
  ok(await run("leave", file("jsonl", jsonl([booking]))));
  const { start_half_day: _h, start_half_period: _p, requested_at: _r, reviewed_at: _v, ...partial } = booking;
  const dry = ok(await run("leave", file("jsonl", jsonl([{ ...partial, end_date: "2026-03-05" }])), { dryRun: true }));
  expect(dry.kept?.sort()).toEqual(["cancelled_at", "end_half_day", "end_half_period", "requested_at", "reviewed_at", "start_half_day", "start_half_period"]);
  ok(await run("leave", file("jsonl", jsonl([{ ...partial, end_date: "2026-03-05" }]))));
  const [stored] = await world.store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 10 });
  expect(stored).toMatchObject({
    end_date: "2026-03-05",
    start_half_day: true,
    start_half_period: "pm",
    days: 3.5,
    requested_at: 1769936400000,
    reviewed_at: 1770022800000,
  });
  // null clears: the half day goes, and the days with it.
  ok(await run("leave", file("jsonl", jsonl([{ ...partial, end_date: "2026-03-05", start_half_day: false, start_half_period: null, reviewed_at: null }]))));
  const [cleared] = await world.store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 10 });
  expect(cleared).toMatchObject({ start_half_day: false, start_half_period: null, days: 4, reviewed_at: null, requested_at: 1769936400000 });
});
