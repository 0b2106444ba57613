/**
 * The places that list a record's fields by hand, for speed or because SQL froze them,
 * held to the declarations of lib/record-fields.ts: the JSON shapes a page builds, the
 * quick booking reader of imports, the public-holiday rules, the migrated tables; and the
 * content digests an import stores, which must never change for the same record.
 */
import { describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { contentDigest } from "../adapters/sql/content-digest.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import {
  apiKeys,
  EMPLOYEE_FIELDS,
  HOLIDAY_ENTRY_FIELDS,
  importKeys,
  inputColumns,
  LEAVE_BOOKING_FIELDS,
  LEAVE_TYPE_FIELDS,
  recordColumns,
  type FieldSpecs,
} from "../lib/record-fields.ts";
import { closureHolidayEntry, employeeJson, jsonShaper, leaveBookingJson, publicHolidayEntry } from "../lib/records.ts";
import { quickBookingFields } from "../scripts/import/booking-fields.ts";
import { publicFields } from "../scripts/import/holiday-rows.ts";
import { createRecordNormaliser } from "../scripts/import/normalise-records.ts";
import { aClosureDay, aLeaveBooking, anEmployee } from "../testing/record-builders.ts";

const ID = "3f2b8c1e-6a0d-4e8f-9b7a-2c4d5e6f7a81";
const ANNUAL = { id: ID, name: "Annual", category: "annual", is_paid: true };

describe("the JSON shapes follow the declarations' API order", () => {
  test("employee", () => {
    const json = employeeJson(anEmployee());
    expect(Object.keys(json)).toEqual(apiKeys(EMPLOYEE_FIELDS));
  });

  test("employee, compiled or by the loop a host without code generation gets: the same text", () => {
    const loop = jsonShaper(EMPLOYEE_FIELDS);
    for (const e of [anEmployee(), anEmployee({ first_name: 'Zoë "Z"', department: null, updated_at: 1_772_357_400_123 })]) {
      expect(JSON.stringify(loop(e))).toBe(JSON.stringify(employeeJson(e)));
    }
  });

  test("leave booking, and the leave type it embeds", () => {
    const json = leaveBookingJson(aLeaveBooking());
    expect(Object.keys(json)).toEqual(apiKeys(LEAVE_BOOKING_FIELDS));
    expect(Object.keys(json.leave_type)).toEqual(apiKeys(LEAVE_TYPE_FIELDS));
  });

  test("holiday entries of both types", () => {
    const closure = closureHolidayEntry(aClosureDay());
    expect(Object.keys(closure)).toEqual(apiKeys(HOLIDAY_ENTRY_FIELDS));
    expect(Object.keys(publicHolidayEntry("GB-ENG", "2026-12-25", "Christmas Day"))).toEqual(apiKeys(HOLIDAY_ENTRY_FIELDS));
  });
});

describe("the hand-written import rules name the declared fields", () => {
  test("the quick booking reader returns every import field of a booking, in order", () => {
    const fields = quickBookingFields({ employee_id: ID, leave_type: ANNUAL, start_date: "2026-01-05", end_date: "2026-01-05", status: "approved" });
    expect(fields).not.toBeNull();
    expect(Object.keys(fields!)).toEqual(importKeys(LEAVE_BOOKING_FIELDS));
  });

  test("a public holiday row is read from the holiday entry's import fields but its type and id", () => {
    const without = importKeys(HOLIDAY_ENTRY_FIELDS).filter((k) => k !== "type" && k !== "id");
    expect(Object.keys(publicFields.entries).sort()).toEqual(without.sort());
  });
});

describe("the migrated SQL tables hold the declared fields", () => {
  const tables: [string, FieldSpecs, string[]][] = [
    ["employees", EMPLOYEE_FIELDS, ["organisation_id", "content_digest", "updated_at", "deleted_at", "rendered"]],
    ["leave_types", LEAVE_TYPE_FIELDS, ["organisation_id", "updated_at"]],
    ["leave_bookings", LEAVE_BOOKING_FIELDS, ["organisation_id", "content_digest", "updated_at", "deleted_at", "rendered"]],
    ["closure_days", HOLIDAY_ENTRY_FIELDS, ["organisation_id", "content_digest", "updated_at", "deleted_at"]],
  ];

  test.each(tables)("%s: a column for each field an import writes or a read returns, null only where the field may be", async (table, fields, bookkeeping) => {
    const store = openSqliteStore({ filename: ":memory:" });
    try {
      await store.migrate();
      const { rows } = await sql<{ name: string; notnull: number }>`select name, "notnull" from pragma_table_info(${table})`.execute(sqlConnectionOf(store));
      // updated_at is a field the API shows and bookkeeping both.
      const declared = [...new Set([...inputColumns(fields), ...recordColumns(fields)])].filter((c) => !bookkeeping.includes(c));
      const nullable = (column: string) => Object.entries(fields).some(([key, spec]) => (spec.column ?? key) === column && spec.nullable === true);
      expect(
        rows
          .map((r) => r.name)
          .filter((c) => !bookkeeping.includes(c))
          .sort(),
      ).toEqual(declared.sort());
      for (const column of declared)
        expect({ column, nullable: rows.find((r) => r.name === column)!.notnull === 0 }).toEqual({ column, nullable: nullable(column) });
    } finally {
      await store.close();
    }
  });
});

describe("what an import stores of a record is what it always was", () => {
  // Digests computed before the field lists were derived from the declarations; a store
  // compares them on every import, so the same record must digest the same forever.
  const ORG = "00000000-0000-4000-8000-000000000001";
  const normalise = (kind: "employees" | "leave" | "holidays", raw: object) => createRecordNormaliser(kind, { organisationId: ORG })(raw);

  test("an employee", () => {
    const result = normalise("employees", {
      external_id: "E1",
      first_name: "Ada",
      last_name: "Lovelace",
      preferred_name: null,
      job_title: "Engineer",
      department: "Maths",
      status: "active",
      start_date: "2020-01-06",
      leaving_date: null,
      holiday_calendar: "GB-ENG",
    });
    if (!result.ok || result.row.type !== "employee") throw new Error(JSON.stringify(result));
    expect(Object.keys(result.row.employee).sort()).toEqual(inputColumns(EMPLOYEE_FIELDS).sort());
    expect(contentDigest(result.row.employee)).toBe("965f450f07c92b71593a1696bc570da101c0127a49702c231552bc7c4c4644d2");
  });

  test("a field added after the first ones changes no digest while it is null, and does once it holds something", () => {
    const result = normalise("employees", { external_id: "E1", first_name: "Ada", last_name: "Lovelace", status: "active" });
    if (!result.ok || result.row.type !== "employee") throw new Error(JSON.stringify(result));
    const before = contentDigest(result.row.employee);
    expect(contentDigest({ ...result.row.employee, pronouns: null })).toBe(before);
    expect(contentDigest({ ...result.row.employee, pronouns: "she/her" })).not.toBe(before);
    // A first field's null is part of the text, as it always was.
    expect(contentDigest({ ...result.row.employee, department: null })).toBe(before);
    expect(contentDigest({ ...result.row.employee, department: "Maths" })).not.toBe(before);
  });

  test("a booking", () => {
    const result = normalise("leave", {
      external_id: "B1",
      employee_external_id: "E1",
      leave_type: { name: "Annual", category: "annual", is_paid: true },
      start_date: "2026-03-02",
      end_date: "2026-03-03",
      start_half_day: true,
      start_half_period: "pm",
      days: 1.5,
      status: "approved",
      requested_at: "2026-01-01T09:00:00Z",
    });
    if (!result.ok || result.row.type !== "booking") throw new Error(JSON.stringify(result));
    expect(Object.keys(result.row.booking).sort()).toEqual(inputColumns(LEAVE_BOOKING_FIELDS).sort());
    expect(contentDigest(result.row.booking)).toBe("7e9a6f7507c63778f4a99d23a8af1e765e09cf86939800acc0bc939324186fba");
  });

  test("a closure day", () => {
    const result = normalise("holidays", { type: "company", date: "2026-12-24", name: "Christmas Eve", applies_to: "department", department: "Sales" });
    if (!result.ok || result.row.type !== "closure") throw new Error(JSON.stringify(result));
    expect(Object.keys(result.row.closure).sort()).toEqual(inputColumns(HOLIDAY_ENTRY_FIELDS).sort());
    expect(contentDigest(result.row.closure)).toBe("d737985d30b401ddd14882393940d263730491dfa1d6ada45c923d1b00a9da19");
  });
});
