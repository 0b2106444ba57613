import { describe, expect, test } from "bun:test";
import type { EmployeeJson } from "../lib/api-schemas.ts";
import { employeeJson, type EmployeeRecord } from "../lib/records.ts";
import { hideEmployeeFields } from "../lib/restricted-text.ts";
import { parseRestriction, restrictedEmployeeJson } from "../lib/restriction.ts";

/** Employees whose values hold what could confuse a pass over the text: quotes, backslashes, a member's own text. */
const TRICKY: EmployeeRecord[] = [
  {
    id: "e1",
    first_name: "Ann \\",
    last_name: 'O"Neil\\\\',
    preferred_name: ',"job_title":"CEO"}',
    job_title: null,
    department: 'x","last_name":"Mallory',
    status: "active",
    start_date: "2020-01-01",
    leaving_date: null,
    holiday_calendar: "GB-ENG",
    updated_at: 1_700_000_000_000,
  },
  {
    id: "e2",
    first_name: "Émile 🌍",
    last_name: "\u0001\n\t",
    preferred_name: null,
    job_title: "Lead \\\\\\",
    department: null,
    status: "terminated",
    start_date: null,
    leaving_date: "2024-02-29",
    holiday_calendar: null,
    updated_at: 1_700_000_000_001,
  },
];

const page = (records: EmployeeRecord[]) => ({ json: JSON.stringify(records.map(employeeJson)), count: records.length, hasMore: false, last: null });

describe("hideEmployeeFields", () => {
  for (const fields of ["first_name,last_name", "department,start_date", "preferred_name,job_title,holiday_calendar", "status,leaving_date"]) {
    test(`writes what the records would, reading only ${fields}`, () => {
      const restriction = parseRestriction({ fields }, 0);
      const expected = JSON.stringify(TRICKY.map((e) => restrictedEmployeeJson(restriction, employeeJson(e) as EmployeeJson)));
      expect(hideEmployeeFields(page(TRICKY), restriction.fields!)?.json).toBe(expected);
    });
  }

  test("an empty page stays empty", () => {
    expect(hideEmployeeFields(page([]), ["id", "updated_at"])?.json).toBe("[]");
  });

  test("answers null for text that is not a page of employees, so the records are read", () => {
    expect(hideEmployeeFields({ json: '[{"id":"e1","first_name":"x"}]', count: 1, hasMore: false, last: null }, ["id", "updated_at"])).toBeNull();
  });
});
