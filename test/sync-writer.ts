/**
 * The writer of test/sync.e2e.test.ts, a child process: keeps changing one organisation's
 * data through the importer (importRecords, one small import per change) while the test's
 * client syncs. It keeps a model of what the API should return and takes orders on stdin,
 * one a line:
 *
 *   go     start changing, until `pause`; prints `w` after every committed change
 *   pause  finish the change in flight, then print `paused {model}` (JSON: the ids the
 *          API should list now, and how many changes of each kind were made so far)
 *   quit   close the store and exit
 *
 * It prints `ready` once the initial data is in. Changes: employee updates, deletions,
 * re-imports of deleted employees (created afresh: their bookings went with them, docs/api.md,
 * "Personal data"), new employees; booking
 * updates, start_date edits, deletions, new bookings, switches between an annual and a
 * sick leave type (a switch hides or shows a booking); leave-type renames (which move the
 * updated_at of every booking of the type). Random choices come from a seeded generator,
 * so a failing run can be replayed with the seed it printed.
 *
 * With --moves (test/restricted-sync.e2e.test.ts), employees also move between holiday
 * calendars (GB-ENG, GB-SCT, DE) as between departments, each has a name of their own (so a
 * body can be searched for it), and the model also says, by employee, every department and
 * calendar they ever had.
 *
 *   bun test/sync-writer.ts (--db FILE | --database-url URL) --org ORG_ID [--seed N] [--moves]
 */
import { parseArgs } from "node:util";
import { addDays } from "../lib/dates.ts";
import { importRecords } from "../scripts/import/import-file.ts";
import { openMigratedStore } from "../scripts/open-store.ts";
import { aLeaveBookingJson, aLeaveType, anEmployeeJson } from "../testing/record-builders.ts";

const { values } = parseArgs({
  options: { db: { type: "string" }, "database-url": { type: "string" }, org: { type: "string" }, seed: { type: "string" }, moves: { type: "boolean" } },
});
const moves = values.moves === true;
const CALENDARS = ["GB-ENG", "GB-SCT", "DE"];
/** With --moves: by employee, their names and every department and calendar they ever had. */
const people: Record<string, { names: string[]; departments: string[]; calendars: string[] }> = {};
function noteAttributes(e: Row): void {
  const p = (people[e.id] ??= { names: [e.first_name as string, e.last_name as string], departments: [], calendars: [] });
  if (!p.departments.includes(e.department as string)) p.departments.push(e.department as string);
  if (!p.calendars.includes(e.holiday_calendar as string)) p.calendars.push(e.holiday_calendar as string);
}
const organisationId = values.org!;
const store = await openMigratedStore({
  global: { db: values.db, databaseUrl: values["database-url"], json: false },
  io: { env: {}, err: (text) => console.error(text) },
});

const initialSeed = Number(values.seed ?? Date.now() % 1_000_000);
let seed = initialSeed;
/** mulberry32: small, seeded, good enough to pick changes. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));

type Row = Record<string, unknown> & { id: string };
const employees = new Map<string, Row>();
const deletedEmployees = new Map<string, Row>();
const bookings = new Map<string, Row>();
const leaveTypes = {
  annual: aLeaveType({ id: "5e7a0c2e-1d4b-4c8e-9a51-0000000000a1", name: "Annual leave" }),
  sick: aLeaveType({ id: "5e7a0c2e-1d4b-4c8e-9a51-0000000000a2", name: "Sick leave", category: "sick" }),
};
const counts: Record<string, number> = {};

/** Bookings are spread over 2026–2027, the range the test syncs. */
const FIRST_DAY = "2026-01-01";
const SPAN_DAYS = 720;

async function write(kind: "employees" | "leave", records: Row[], label: string): Promise<void> {
  // Noted before the import: a client may read them as soon as it commits.
  if (moves && kind === "employees") for (const r of records) if (r.department !== undefined) noteAttributes(r);
  const outcome = await importRecords(store, { organisationId, kind, label: "writer", records: records.map((record, i) => ({ line: i + 1, record })) });
  if (!outcome.ok) throw new Error(`writer: ${label} failed: ${outcome.errors.join("; ")}`);
  counts[label] = (counts[label] ?? 0) + 1;
}

/** An employee as an import file carries it: the API's JSON but its updated_at. */
function newEmployee(): Row {
  const { updated_at: _, ...employee } = anEmployeeJson({
    id: crypto.randomUUID(),
    first_name: pick(["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald"]),
    last_name: pick(["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth"]),
    job_title: `Engineer ${between(1, 5)}`,
    department: pick(["Engineering", "Research", "Sales"]),
  });
  if (!moves) return employee;
  // A name of their own, to search the bytes a restricted client received for.
  const tag = employee.id.slice(0, 8);
  return { ...employee, first_name: `First${tag}`, last_name: `Last${tag}`, holiday_calendar: pick(CALENDARS) };
}

function newBooking(employeeId: string): Row {
  const start = addDays(FIRST_DAY, between(0, SPAN_DAYS));
  const length = between(0, 6);
  const { updated_at: _, ...booking } = aLeaveBookingJson({
    id: crypto.randomUUID(),
    employee_id: employeeId,
    leave_type: leaveTypes.annual,
    start_date: start,
    end_date: addDays(start, length),
    days: length + 1,
    status: "pending",
    requested_at: "2026-01-02T09:00:00.000Z",
  });
  return booking;
}

/** The current leave type object of a booking (by id, so a rename is carried along). */
const typeOf = (b: Row) => ((b.leave_type as { id: string }).id === leaveTypes.annual.id ? leaveTypes.annual : leaveTypes.sick);
const liveBookings = () => [...bookings.values()].filter((b) => employees.has(b.employee_id as string));

const NEW_EMPLOYEE: [number, () => Promise<void>] = [
  1,
  async () => {
    const e = newEmployee();
    employees.set(e.id, e);
    await write("employees", [e], "new employee");
  },
];

/** With --moves: an employee moves to another holiday calendar. */
const CALENDAR_MOVE: [number, () => Promise<void>] = [
  3,
  async () => {
    const e = { ...pick([...employees.values()]), holiday_calendar: pick(CALENDARS) };
    employees.set(e.id, e);
    await write("employees", [e], "calendar move");
  },
];

const CHANGES: [number, () => Promise<void>][] = [
  [
    6,
    async () => {
      const e = { ...pick([...employees.values()]), job_title: `Engineer ${between(1, 9)}`, department: pick(["Engineering", "Research", "Sales", "Support"]) };
      employees.set(e.id, e);
      await write("employees", [e], "employee update");
    },
  ],
  [
    2,
    async () => {
      if (employees.size < 25) return;
      const e = pick([...employees.values()]);
      employees.delete(e.id);
      deletedEmployees.set(e.id, e);
      // Their bookings are deleted with them, for good.
      for (const b of [...bookings.values()]) if (b.employee_id === e.id) bookings.delete(b.id);
      await write("employees", [{ id: e.id, deleted: true }], "employee deletion");
    },
  ],
  [
    2,
    async () => {
      if (deletedEmployees.size === 0) return;
      const e = pick([...deletedEmployees.values()]);
      deletedEmployees.delete(e.id);
      employees.set(e.id, e);
      await write("employees", [e], "employee re-import");
    },
  ],
  NEW_EMPLOYEE,
  [
    6,
    async () => {
      const b: Row = { ...pick(liveBookings()), status: pick(["pending", "approved", "rejected", "cancelled", "cancellation_requested"]) };
      b.leave_type = typeOf(b);
      bookings.set(b.id, b);
      await write("leave", [b], "booking update");
    },
  ],
  [
    6,
    async () => {
      const b = { ...pick(liveBookings()) };
      const length = between(0, 6);
      b.start_date = addDays(FIRST_DAY, between(0, SPAN_DAYS));
      b.end_date = addDays(b.start_date as string, length);
      b.days = length + 1;
      b.leave_type = typeOf(b);
      bookings.set(b.id, b);
      await write("leave", [b], "start_date edit");
    },
  ],
  [
    2,
    async () => {
      if (bookings.size < 80) return;
      const b = pick(liveBookings());
      bookings.delete(b.id);
      await write("leave", [{ id: b.id, deleted: true }], "booking deletion");
    },
  ],
  [
    3,
    async () => {
      const b = newBooking(pick([...employees.keys()]));
      bookings.set(b.id, b);
      await write("leave", [b], "new booking");
    },
  ],
  [
    1,
    async () => {
      const b = { ...pick(liveBookings()) };
      b.leave_type = typeOf(b) === leaveTypes.annual ? leaveTypes.sick : leaveTypes.annual;
      bookings.set(b.id, b);
      await write("leave", [b], "leave type switch");
    },
  ],
];

/**
 * A rename moves the updated_at of every booking, so that for the sync's skew every sync
 * returns everything: done only at these changes (at least 200 are made, one a round), so
 * that it rarely hides a booking that another change made visible without moving its
 * updated_at.
 */
const RENAME_AT = new Set([150, 600]);
async function renameLeaveType(): Promise<void> {
  // A type is renamed through any booking row that names it by id with a new name.
  const annual = liveBookings().filter((x) => typeOf(x) === leaveTypes.annual);
  if (annual.length === 0) return;
  leaveTypes.annual = { ...leaveTypes.annual, name: `Annual leave v${between(1, 1_000_000)}` };
  const b = { ...pick(annual), leave_type: leaveTypes.annual };
  bookings.set(b.id, b);
  await write("leave", [b], "leave type rename");
}
// With --moves, people come and go more often too.
if (moves) CHANGES.push(CALENDAR_MOVE, NEW_EMPLOYEE);
const TOTAL_WEIGHT = CHANGES.reduce((sum, [w]) => sum + w, 0);

let changes = 0;
async function changeSomething(): Promise<void> {
  if (RENAME_AT.has(++changes)) return renameLeaveType();
  let r = random() * TOTAL_WEIGHT;
  for (const [weight, change] of CHANGES) {
    if ((r -= weight) < 0) return change();
  }
}

/** What the API should list: employees not deleted; annual bookings of those employees. */
function model() {
  const bookingIds = liveBookings()
    .filter((b) => typeOf(b).category === "annual")
    .map((b) => b.id);
  return { employees: [...employees.keys()], leaveRequests: bookingIds, counts, ...(moves ? { people } : {}) };
}

// Initial data: 40 employees with 3 bookings each.
for (let i = 0; i < 40; i++) {
  const e = newEmployee();
  employees.set(e.id, e);
}
await write("employees", [...employees.values()], "initial employees");
for (const id of [...employees.keys()])
  for (let i = 0; i < 3; i++) {
    const b = newBooking(id);
    bookings.set(b.id, b);
  }
await write("leave", [...bookings.values()], "initial bookings");
process.stdout.write(`ready ${initialSeed}\n`);

let running = false;
let loop: Promise<void> = Promise.resolve();
/** Changes one thing after another while `running`; yields between changes so stdin is read. */
async function keepChanging(): Promise<void> {
  while (running) {
    await changeSomething();
    process.stdout.write("w\n");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const decoder = new TextDecoder();
let pending = "";
for await (const chunk of Bun.stdin.stream()) {
  pending += decoder.decode(chunk, { stream: true });
  let newline: number;
  while ((newline = pending.indexOf("\n")) >= 0) {
    const order = pending.slice(0, newline).trim();
    pending = pending.slice(newline + 1);
    if (order === "go") {
      running = true;
      loop = keepChanging();
    } else if (order === "pause") {
      running = false;
      await loop;
      process.stdout.write(`paused ${JSON.stringify(model())}\n`);
    } else if (order === "quit") {
      running = false;
      await loop;
      await store.close();
      process.exit(0);
    }
  }
}
