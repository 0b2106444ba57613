/**
 * The Store contract's round trip: an employee and a booking with every field that may be
 * null holding a value (record-builders.ts, `aFull…`), read back through every read that
 * answers them, field for field. The standard fixture leaves some field of each record
 * null somewhere, so a store that never writes one (or a field added to the declaration
 * that a store's schema does not hold yet) would pass everything else.
 */
import { EMPLOYEE_FIELDS, LEAVE_BOOKING_FIELDS } from "../lib/record-fields.ts";
import { QUERY_RANGE, T0, U, fixtureUuid, standardFixture, type ContractFixture } from "./contract-fixture.ts";
import { type ContractKit, expectedBooking, expectedEmployee } from "./contract-kit.ts";
import { aFullStoredBooking, aFullStoredEmployee, aStoredLeaveType, fieldsLeftNull } from "./record-builders.ts";

const ORG = fixtureUuid("0c000000", 3);
const EMPLOYEE = fixtureUuid("e8000000", 1);
const BOOKING = fixtureUuid("b8000000", 1);
const LEAVE_TYPE = fixtureUuid("a3000000", 1);

/** The standard fixture and an organisation of its own holding one full employee and one full booking. */
function fullFixture(): ContractFixture {
  const fixture = standardFixture();
  fixture.organisations.push({ id: ORG, name: "Full Fields Ltd", api_enabled: true, created_at: T0 });
  fixture.leaveTypes.push(aStoredLeaveType({ organisation_id: ORG, id: LEAVE_TYPE, name: "Annual leave", category: "annual", is_paid: true }));
  fixture.employees.push(aFullStoredEmployee({ organisation_id: ORG, id: EMPLOYEE, holiday_calendar: "gb-eng", updated_at: U[2] }));
  fixture.bookings.push(
    aFullStoredBooking({
      organisation_id: ORG,
      id: BOOKING,
      employee_id: EMPLOYEE,
      leave_type_id: LEAVE_TYPE,
      requested_at: T0 - 86_400_000,
      reviewed_at: T0,
      cancelled_at: T0 + 3_600_000,
      updated_at: U[3],
    }),
  );
  return fixture;
}

export function roundTripContract(kit: ContractKit): void {
  const { describe, test, expect, withFixture, employees, leave } = kit;

  describe("every field written is read back", () => {
    // One test for both records: each test of the contract pays for a fresh store.
    test(
      "an employee and a booking with no field null: by findEmployee, in the employees page and in the leave page",
      withFixture(fullFixture(), async (store, fixture) => {
        const employee = expectedEmployee(fixture, EMPLOYEE);
        expect(fieldsLeftNull(EMPLOYEE_FIELDS, "record", employee)).toEqual([]);
        expect(await store.findEmployee(ORG, EMPLOYEE)).toEqual(employee);
        expect(await employees(store, { organisationId: ORG })).toEqual([employee]);
        const booking = expectedBooking(fixture, BOOKING);
        expect(fieldsLeftNull(LEAVE_BOOKING_FIELDS, "record", booking)).toEqual([]);
        expect(await leave(store, { organisationId: ORG, ...QUERY_RANGE })).toEqual([booking]);
      }),
    );
  });
}
