/**
 * Small helpers for the data-endpoint tests: a world with one authorised organisation,
 * typed JSON bodies, error assertions, soft deletes and a page walker that follows
 * `next_cursor` to the end.
 */
import { expect } from "bun:test";
import type { closureHolidayEntry, employeeJson, leaveBookingJson } from "../lib/records.ts";
import { aClosureDayInput } from "../testing/record-builders.ts";
import { authorisedOrganisation, createWorld, type TestWorld } from "./support.ts";

export type EmployeeJson = ReturnType<typeof employeeJson>;
export type BookingJson = ReturnType<typeof leaveBookingJson>;
export type HolidayJson = ReturnType<typeof closureHolidayEntry>;

export interface Page<T> {
  has_more: boolean;
  next_cursor: string | null;
  data: T[];
}

export type Get = (path: string, headers?: Record<string, string>) => Promise<Response>;

/** A fresh world with one organisation whose token holds every scope. */
export async function freshWorld() {
  const world = await createWorld();
  const org = await authorisedOrganisation(world);
  return { world, ...org };
}

export const ONE_SECOND = 1000;

/** The body of a 200 response, typed as the caller expects. */
export async function ok<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 200 });
  return JSON.parse(text) as T;
}

/** Asserts an error answer: status, code and (when given) the `param` it names. */
export async function expectError(res: Response, status: number, code: string, param?: string): Promise<void> {
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status).toBe(status);
  expect(body.error).toBe(code);
  expect(typeof body.error_description).toBe("string");
  if (param === undefined) expect(body).not.toHaveProperty("param");
  else expect(body.param).toBe(param);
}

/** Soft-deletes records the way an import with `deleted: true` does, at the clock's time. */
export async function softDelete(world: TestWorld, organisationId: string, ids: { employees?: string[]; bookings?: string[] }) {
  const now = world.clock.now();
  await world.store.runImport(async (w) => {
    if (ids.employees) await w.deleteEmployees(organisationId, ids.employees, now);
    if (ids.bookings) await w.deleteLeaveBookings(organisationId, ids.bookings, now);
  });
}

/** Follows `next_cursor` from `path` (from `cursor` when given) until `has_more` is false; returns every page. */
export async function walkPages<T>(get: Get, path: string, cursor: string | null = null): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  let next = cursor;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const url: string = next === null ? path : `${path}${separator}cursor=${next}`;
    const page: Page<T> = await ok<Page<T>>(await get(url));
    expect(page.has_more).toBe(page.next_cursor !== null);
    pages.push(page);
    next = page.next_cursor;
    if (pages.length > 1000) throw new Error("paging did not end");
  } while (next !== null);
  return pages;
}

/** A closure day as imported: the whole company off on 24 December, deducted from leave (testing/record-builders.ts). */
export const closure = aClosureDayInput;

/** Changes one character of a cursor to another base64url character. */
export function flipChar(cursor: string, index: number): string {
  const c = cursor[index]!;
  const replacement = c === "A" ? "B" : "A";
  return cursor.slice(0, index) + replacement + cursor.slice(index + 1);
}

export const UUID_LOWER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
