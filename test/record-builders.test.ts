/**
 * The record builders of testing/record-builders.ts: each gives every field of its record's
 * declaration (lib/record-fields.ts) a value and no other field, a value its API schema or
 * import rule accepts, so a record built with no overrides is one the API serves and an
 * import writes as it is.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { Employee, HolidayEntry, LeaveBooking, LeaveType } from "../lib/api-schemas.ts";
import {
  apiEntries,
  apiKeys,
  EMPLOYEE_FIELDS,
  HOLIDAY_ENTRY_FIELDS,
  inputColumns,
  inputKeys,
  LEAVE_BOOKING_FIELDS,
  LEAVE_TYPE_FIELDS,
  recordColumns,
  recordKeys,
  type FieldSpecs,
} from "../lib/record-fields.ts";
import { closureHolidayEntry, employeeJson, leaveBookingJson } from "../lib/records.ts";
import { IMPORT_RULES } from "../scripts/import/import-fields.ts";
import {
  aClosureDay,
  aClosureDayInput,
  aFullEmployee,
  aFullEmployeeInput,
  aFullLeaveBooking,
  aFullLeaveBookingInput,
  aFullStoredBooking,
  aFullStoredEmployee,
  aLeaveBooking,
  aLeaveBookingInput,
  aLeaveBookingJson,
  aLeaveType,
  anEmployee,
  anEmployeeInput,
  anEmployeeJson,
  aStoredBooking,
  aStoredClosureDay,
  aStoredEmployee,
  aStoredLeaveType,
  BUILT_AT,
  fieldsLeftNull,
} from "../testing/record-builders.ts";

const sorted = (keys: string[]) => [...keys].sort();

describe("every field of the declaration gets a value, and no other field", () => {
  test.each([
    ["anEmployee", anEmployee(), recordKeys(EMPLOYEE_FIELDS)],
    ["aLeaveType", aLeaveType(), recordKeys(LEAVE_TYPE_FIELDS)],
    ["aLeaveBooking", aLeaveBooking(), recordKeys(LEAVE_BOOKING_FIELDS)],
    ["aClosureDay", aClosureDay(), recordKeys(HOLIDAY_ENTRY_FIELDS)],
    ["anEmployeeInput", anEmployeeInput(), inputColumns(EMPLOYEE_FIELDS)],
    ["aLeaveBookingInput", aLeaveBookingInput(), inputColumns(LEAVE_BOOKING_FIELDS)],
    ["aClosureDayInput", aClosureDayInput(), inputColumns(HOLIDAY_ENTRY_FIELDS)],
    ["anEmployeeJson", anEmployeeJson(), apiKeys(EMPLOYEE_FIELDS)],
    ["aLeaveBookingJson", aLeaveBookingJson(), apiKeys(LEAVE_BOOKING_FIELDS)],
  ] as [string, object, string[]][])("%s, in declaration order", (_name, built, keys) => {
    expect(Object.keys(built)).toEqual(keys);
  });

  test.each([
    ["aStoredEmployee", aStoredEmployee(), [...recordColumns(EMPLOYEE_FIELDS), "organisation_id", "deleted"]],
    ["aStoredLeaveType", aStoredLeaveType(), [...recordColumns(LEAVE_TYPE_FIELDS), "organisation_id"]],
    ["aStoredBooking", aStoredBooking(), [...recordColumns(LEAVE_BOOKING_FIELDS), "organisation_id", "deleted"]],
    ["aStoredClosureDay", aStoredClosureDay(), [...recordColumns(HOLIDAY_ENTRY_FIELDS), "organisation_id", "id", "updated_at", "deleted"]],
  ] as [string, object, string[]][])("%s: the record's columns and what a store keeps beside them", (_name, built, keys) => {
    expect(sorted(Object.keys(built))).toEqual(sorted(keys));
  });
});

/** The fields whose value the field's own API schema rejects, with valibot's reason. */
function rejectedByApi(fields: FieldSpecs, json: Record<string, unknown>): string[] {
  return Object.entries(apiEntries(fields)).flatMap(([key, schema]) => {
    const result = v.safeParse(schema as v.GenericSchema, json[key]);
    return result.success ? [] : [`${key}: ${result.issues[0].message}`];
  });
}

describe("each field's value is one the API's schema accepts", () => {
  test("field by field, as the API shapes the built record", () => {
    expect(rejectedByApi(EMPLOYEE_FIELDS, employeeJson(anEmployee()))).toEqual([]);
    expect(rejectedByApi(LEAVE_TYPE_FIELDS, aLeaveType())).toEqual([]);
    expect(rejectedByApi(LEAVE_BOOKING_FIELDS, leaveBookingJson(aLeaveBooking()))).toEqual([]);
    expect(rejectedByApi(HOLIDAY_ENTRY_FIELDS, closureHolidayEntry(aClosureDay()))).toEqual([]);
  });

  test("a record built with no overrides serialises to the API's JSON, which its schema accepts whole", () => {
    const employee = employeeJson(anEmployee());
    expect(v.parse(Employee, employee)).toEqual(employee);
    const booking = leaveBookingJson(aLeaveBooking());
    expect(v.parse(LeaveBooking, booking)).toEqual(booking);
    expect(v.is(LeaveType, aLeaveType())).toBe(true);
    expect(v.is(HolidayEntry, closureHolidayEntry(aClosureDay()))).toBe(true);
    expect(v.is(Employee, anEmployeeJson())).toBe(true);
    expect(v.is(LeaveBooking, aLeaveBookingJson())).toBe(true);
  });

  test("an input's fields the API never shows pass their import rule", () => {
    const rejected = (fields: FieldSpecs, input: object) =>
      inputKeys(fields)
        .filter((key) => fields[key]!.api === undefined)
        .filter((key) => !v.is(IMPORT_RULES[fields[key]!.import!], (input as Record<string, unknown>)[key]));
    expect(rejected(EMPLOYEE_FIELDS, anEmployeeInput())).toEqual([]);
    expect(rejected(LEAVE_BOOKING_FIELDS, aLeaveBookingInput())).toEqual([]);
    expect(rejected(HOLIDAY_ENTRY_FIELDS, aClosureDayInput())).toEqual([]);
  });
});

describe("the full builders leave no field null", () => {
  // The field lists come from the declaration, so a field added there is checked here
  // (and, through testing/contract-round-trip.ts, written and read back by every store) at once.
  test.each([
    ["aFullEmployee", aFullEmployee(), EMPLOYEE_FIELDS, "record", recordKeys(EMPLOYEE_FIELDS)],
    ["aFullEmployeeInput", aFullEmployeeInput(), EMPLOYEE_FIELDS, "input", inputColumns(EMPLOYEE_FIELDS)],
    ["aFullStoredEmployee", aFullStoredEmployee(), EMPLOYEE_FIELDS, "stored", [...recordColumns(EMPLOYEE_FIELDS), "organisation_id", "deleted"]],
    ["aFullLeaveBooking", aFullLeaveBooking(), LEAVE_BOOKING_FIELDS, "record", recordKeys(LEAVE_BOOKING_FIELDS)],
    ["aFullLeaveBookingInput", aFullLeaveBookingInput(), LEAVE_BOOKING_FIELDS, "input", inputColumns(LEAVE_BOOKING_FIELDS)],
    ["aFullStoredBooking", aFullStoredBooking(), LEAVE_BOOKING_FIELDS, "stored", [...recordColumns(LEAVE_BOOKING_FIELDS), "organisation_id", "deleted"]],
  ] as [string, object, FieldSpecs, "record" | "input" | "stored", string[]][])("%s: every declared field, none null", (_name, built, fields, form, keys) => {
    expect(sorted(Object.keys(built))).toEqual(sorted(keys));
    expect(fieldsLeftNull(fields, form, built)).toEqual([]);
  });

  test("fieldsLeftNull names what a builder leaves null, by the declaration", () => {
    expect(fieldsLeftNull(EMPLOYEE_FIELDS, "record", anEmployee())).toEqual(["preferred_name", "leaving_date"]);
    expect(fieldsLeftNull(LEAVE_BOOKING_FIELDS, "input", aLeaveBookingInput())).toEqual([
      "external_id",
      "start_half_period",
      "end_half_period",
      "reviewed_at",
      "cancelled_at",
    ]);
  });

  test("their values are ones the API's schema accepts, and that agree with each other", () => {
    const employee = employeeJson(aFullEmployee());
    expect(v.parse(Employee, employee)).toEqual(employee);
    const booking = leaveBookingJson(aFullLeaveBooking());
    expect(v.parse(LeaveBooking, booking)).toEqual(booking);
    expect(booking).toMatchObject({ start_half_day: true, start_half_period: "pm", end_half_day: true, end_half_period: "am", status: "cancelled" });
    expect(employee.leaving_date! > employee.start_date!).toBe(true);
  });

  test("an import writes a full employee and booking, and the store reads every field back", async () => {
    const ORG = "0a000000-0000-4000-8000-00000000f011";
    const store = createMemoryStore();
    await store.createOrganisation({ id: ORG, name: "Full Ltd", api_enabled: true, created_at: BUILT_AT });
    const employee = aFullEmployeeInput();
    const annual = aLeaveType();
    const input = aFullLeaveBookingInput({ employee_id: employee.id, leave_type_id: annual.id });
    await store.runImport(async (w) => {
      await w.upsertEmployees(ORG, [employee], BUILT_AT);
      await w.upsertLeaveTypes(ORG, [annual], BUILT_AT);
      await w.upsertLeaveBookings(ORG, [input], BUILT_AT);
    });
    const found = await store.findEmployee(ORG, employee.id);
    expect(fieldsLeftNull(EMPLOYEE_FIELDS, "record", found!)).toEqual([]);
    const [booking] = await store.listOverlappingLeave({ organisationId: ORG, filters: { from: input.start_date, to: input.end_date }, limit: 10 });
    expect(fieldsLeftNull(LEAVE_BOOKING_FIELDS, "record", booking!)).toEqual([]);
  });
});

describe("defaults and overrides", () => {
  test("optional fields are null, ids fresh, instants BUILT_AT, and the caller's values win", () => {
    const [ada, another] = [anEmployee(), anEmployee()];
    expect(ada).toMatchObject({ first_name: "Ada", last_name: "Lovelace", preferred_name: null, leaving_date: null, updated_at: BUILT_AT });
    expect(ada.id).not.toBe(another.id);
    expect(anEmployee({ first_name: "Grace", preferred_name: "Amazing Grace" })).toMatchObject({ first_name: "Grace", preferred_name: "Amazing Grace" });
    expect(aLeaveBooking({ days: 0.5 })).toMatchObject({ days: 0.5, reviewed_at: null, cancelled_at: null, start_half_period: null });
    expect(aLeaveBooking().leave_type).toMatchObject({ name: "Annual leave", category: "annual", is_paid: true });
  });
});

describe("built records are what a store takes", () => {
  const ORG = "0a000000-0000-4000-8000-00000000b1d5";
  const organisation = { id: ORG, name: "Builders Ltd", api_enabled: true, created_at: BUILT_AT };

  test("inputs write through an ImportWriter and read back as the records the API shows", async () => {
    const store = createMemoryStore();
    await store.createOrganisation(organisation);
    const employee = anEmployeeInput();
    const annual = aLeaveType();
    const closure = aClosureDayInput();
    const counts = await store.runImport(async (w) => {
      await w.upsertEmployees(ORG, [employee], BUILT_AT);
      await w.upsertLeaveTypes(ORG, [annual], BUILT_AT);
      await w.upsertClosureDays(ORG, [closure], BUILT_AT);
      return w.upsertLeaveBookings(ORG, [aLeaveBookingInput({ employee_id: employee.id, leave_type_id: annual.id })], BUILT_AT);
    });
    expect(counts.created).toBe(1);
    const { external_id: _, ...record } = employee;
    expect(await store.findEmployee(ORG, employee.id)).toEqual({ ...record, updated_at: BUILT_AT });
    const { id: __, ...closureRecord } = closure;
    expect(await store.listClosureDays(ORG, closure.date, closure.date)).toEqual([closureRecord]);
  });

  test("stored records load as a store's contents", async () => {
    const employee = aStoredEmployee({ organisation_id: ORG });
    const store = createMemoryStore({
      organisations: [organisation],
      clients: [],
      tokens: [],
      employees: [employee],
      leaveTypes: [aStoredLeaveType({ organisation_id: ORG })],
      bookings: [],
      closureDays: [aStoredClosureDay({ organisation_id: ORG })],
      publicHolidays: [],
    });
    const { organisation_id: _o, deleted: _d, ...record } = employee;
    expect(await store.findEmployee(ORG, employee.id)).toEqual(record);
  });
});
