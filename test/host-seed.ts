/**
 * One organisation with API access, one client, one employee and one annual-leave booking:
 * what the tests of the handler on another host (Deno, Node) serve, and how they learn
 * where a child process listens.
 */
import { mintClient } from "../lib/credentials.ts";
import type { ContractFixture } from "../testing/contract-fixture.ts";
import { aStoredBooking, aStoredEmployee, aStoredLeaveType } from "../testing/record-builders.ts";

export const ORG = "0a000000-0000-4000-8000-0000000000d1";
export const EMPLOYEE = "e1000000-0000-4000-8000-0000000000d1";
export const ANNUAL = "a1000000-0000-4000-8000-0000000000d1";
export const BOOKING = "b0000000-0000-4000-8000-0000000000d1";
export const UPDATED = Date.UTC(2026, 0, 5);

export const { client, secret } = mintClient(ORG, ["employees:read", "leave:read", "holidays:read"], "Deno round trip", UPDATED);

/** One organisation with API access, one client, one employee and one annual-leave booking. */
export const SEED: ContractFixture = {
  organisations: [{ id: ORG, name: "Deno Ltd", api_enabled: true, created_at: UPDATED }],
  clients: [client],
  tokens: [],
  employees: [aStoredEmployee({ organisation_id: ORG, id: EMPLOYEE, job_title: null, holiday_calendar: "gb-eng", updated_at: UPDATED })],
  leaveTypes: [aStoredLeaveType({ organisation_id: ORG, id: ANNUAL })],
  bookings: [
    aStoredBooking({
      organisation_id: ORG,
      id: BOOKING,
      employee_id: EMPLOYEE,
      leave_type_id: ANNUAL,
      end_date: "2026-03-04",
      end_half_day: true,
      end_half_period: "pm",
      days: 2.5,
      requested_at: UPDATED,
      reviewed_at: UPDATED,
      updated_at: UPDATED,
    }),
  ],
  closureDays: [],
  publicHolidays: [],
};

/** Reads the child's stdout until the `listening on` line, so no test waits on a timer. */
export async function listeningUrl(stdout: ReadableStream<Uint8Array>, exited: Promise<number>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = stdout.getReader();
  while (true) {
    const next = await Promise.race([reader.read(), exited.then((code) => ({ exitCode: code }))]);
    if ("exitCode" in next) throw new Error(`deno exited ${next.exitCode} before listening: ${text}`);
    if (next.done) throw new Error(`deno closed its output before listening: ${text}`);
    text += decoder.decode(next.value, { stream: true });
    const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
    if (url) {
      reader.releaseLock();
      return url;
    }
  }
}
