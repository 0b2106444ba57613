/**
 * Records kept as JSON text, so that the SQL store can answer a page (`Store.listText`)
 * by joining strings rather than building and serializing objects. What a client sees
 * must not differ by a byte: the text of a record is exactly `JSON.stringify` of its v1
 * JSON (lib/records.ts).
 *
 * The store keeps a record's *body*: its fields but those a page writes itself. Those are
 * the id, the keyset's `updated_at` (an import moves it without touching anything else
 * of the record, such as when a booking's leave type is renamed) and, for a booking, its
 * employee and embedded leave type (a rename of the type changes every booking's text
 * but none of their bodies).
 */
import type { EmployeeJson, LeaveBookingJson } from "../../lib/api-schemas.ts";
import { employeeJson, formatUpdatedAt, leaveBookingJson, type EmployeeRecord, type LeaveBookingRecord, type LeaveTypeRecord } from "../../lib/records.ts";
import type { ListText } from "../../lib/store.ts";

/** An object's members as JSON text, without its braces: what goes between two other members. */
function members(object: object): string {
  return JSON.stringify(object).slice(1, -1);
}

type EmployeeBodySource = Omit<EmployeeRecord, "updated_at">;
type LeaveBodySource = Omit<LeaveBookingRecord, "updated_at" | "leave_type">;

/** The members of an employee's JSON between `id` and `updated_at`. */
export function employeeBody(e: EmployeeBodySource): string {
  const { id: _id, updated_at: _u, ...body } = employeeJson({ ...e, updated_at: 0 }) as EmployeeJson;
  return members(body);
}

/** An employee's JSON text from its id, body and updated_at. */
export function employeeText(id: string, body: string, updatedAt: number): string {
  return `{"id":${JSON.stringify(id)},${body},"updated_at":"${formatUpdatedAt(updatedAt)}"}`;
}

const NO_TYPE: LeaveTypeRecord = { id: "", name: "", category: "annual", is_paid: true };

/** The members of a booking's JSON between its `leave_type` and `updated_at`. */
export function leaveBody(b: LeaveBodySource): string {
  const {
    id: _id,
    employee_id: _e,
    leave_type: _t,
    updated_at: _u,
    ...body
  } = leaveBookingJson({ ...b, leave_type: NO_TYPE, updated_at: 0 }) as LeaveBookingJson;
  return members(body);
}

/** A leave type as a booking embeds it (`leaveBookingJson`'s `leave_type`): the same text for every booking of a page. */
export function leaveTypeText(t: LeaveTypeRecord): string {
  return JSON.stringify({ id: t.id, name: t.name, category: t.category, is_paid: t.is_paid });
}

/** A booking's JSON text from its parts: `typeText` from `leaveTypeText`, `body` from `leaveBody`. */
export function leaveText(id: string, employeeId: string, typeText: string, body: string, updatedAt: number): string {
  return `{"id":${JSON.stringify(id)},"employee_id":${JSON.stringify(employeeId)},"leave_type":${typeText},${body},"updated_at":"${formatUpdatedAt(updatedAt)}"}`;
}

/**
 * The `ListText` of a page from the rows read for it: `rows` holds the page's records in
 * list order and, when the list goes on, at least one more, which says so and is not
 * written. Concatenated rather than joined: `join` first copies each record's text (a
 * rope of its pieces) into a string of its own, which the page then copies again.
 */
export function listTextOf<R>(rows: readonly R[], limit: number, position: (row: R) => [number | string, string], text: (row: R) => string): ListText {
  const count = Math.min(rows.length, limit);
  let json = "";
  for (let i = 0; i < count; i++) json = i === 0 ? text(rows[i]!) : `${json},${text(rows[i]!)}`;
  return { json: `[${json}]`, count, hasMore: rows.length > limit, last: count === 0 ? null : position(rows[count - 1]!) };
}
