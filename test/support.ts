/**
 * Shared set-up for handler-level tests: a fresh migrated store per test, organisations,
 * clients, tokens and data written through the same ImportWriter the importer uses.
 */
import { openTestStore } from "./test-stores.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { mintClient } from "../lib/credentials.ts";
import { randomUuid } from "../lib/ids.ts";
import { ALL_SCOPES, type Scope } from "../lib/scopes.ts";
import type { EmployeeInput, LeaveBookingInput, ClosureDayInput } from "../lib/admin-store.ts";
import type { LeaveTypeRecord } from "../lib/records.ts";
import { createHandler, type Handler, type HandlerOptions } from "../server/handler.ts";
import { aLeaveBookingInput, aLeaveType, anEmployeeInput } from "../testing/record-builders.ts";
import { conformToDocument } from "./openapi-conformance.ts";

export const BASE = "http://leaveapi.test";

/** A controllable clock: tests move time instead of sleeping. */
export function fakeClock(start = Date.parse("2026-03-01T09:30:00.000Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms), set: (ms: number) => void (t = ms) };
}

export interface TestWorld {
  store: SqlAdminStore;
  clock: ReturnType<typeof fakeClock>;
  handler: Handler;
  /** Calls the handler with a path relative to BASE. */
  call: (path: string, init?: RequestInit & { remoteAddress?: string }) => Promise<Response>;
}

/**
 * A fresh, migrated store with a handler on a fake clock: in-memory SQLite, a SQLite file
 * when `filename` is given, or a fresh Postgres schema when LEAVEAPI_TEST_STORE=postgres.
 */
export async function createWorld(options: Partial<HandlerOptions> & { filename?: string } = {}): Promise<TestWorld> {
  const store = await openTestStore({ filename: options.filename });
  const clock = fakeClock();
  // Every answer is checked against openapi.json: one the document does not describe fails the test.
  const handler = conformToDocument(createHandler({ store, now: clock.now, ...options }), options.basePath);
  const call = (path: string, init: RequestInit & { remoteAddress?: string } = {}) => {
    const { remoteAddress, ...rest } = init;
    return handler(new Request(BASE + path, rest), { remoteAddress: remoteAddress ?? "127.0.0.1" });
  };
  return { store, clock, handler, call };
}

export interface TestClient {
  organisationId: string;
  clientId: string;
  clientSecret: string;
}

export async function createOrganisation(world: TestWorld, name = "Acme Ltd", apiEnabled = true): Promise<string> {
  const id = randomUuid();
  await world.store.createOrganisation({ id, name, api_enabled: apiEnabled, created_at: world.clock.now() });
  return id;
}

export async function createClient(world: TestWorld, organisationId: string, scopes: Scope[] = [...ALL_SCOPES]): Promise<TestClient> {
  const { client, secret } = mintClient(organisationId, scopes, "test", world.clock.now());
  await world.store.createClient(client);
  return { organisationId, clientId: client.client_id, clientSecret: secret };
}

export function basicHeader(clientId: string, clientSecret: string): string {
  return `Basic ${btoa(`${clientId}:${clientSecret}`)}`;
}

/** POSTs a token request with Basic credentials; returns the parsed response. */
export async function requestToken(world: TestWorld, client: TestClient, form: Record<string, string> = {}) {
  const res = await world.call("/v1/oauth/token", {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Authorization: basicHeader(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams({ grant_type: "client_credentials", ...form }).toString(),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

/** An organisation with API access on, a client with the given scopes, and a token for it. */
export async function authorisedOrganisation(world: TestWorld, scopes: Scope[] = [...ALL_SCOPES]) {
  const organisationId = await createOrganisation(world);
  const client = await createClient(world, organisationId, scopes);
  const { body } = await requestToken(world, client);
  const token = body.access_token as string;
  const get = (path: string, headers: Record<string, string> = {}) => world.call(path, { headers: { Authorization: `Bearer ${token}`, ...headers } });
  return { organisationId, client, token, get };
}

/** An employee as imported: "Ada Lovelace", a fresh id (testing/record-builders.ts). */
export const employee = anEmployeeInput;

export const ANNUAL: LeaveTypeRecord = aLeaveType({ id: "7d9f3c1e-8a51-4a0b-9f0e-000000000001" });
export const SICK: LeaveTypeRecord = aLeaveType({ id: "7d9f3c1e-8a51-4a0b-9f0e-000000000002", name: "Sick leave", category: "sick" });

/** A booking of the employee's as imported: five days of ANNUAL leave, approved. */
export function booking(employeeId: string, overrides: Partial<LeaveBookingInput> = {}): LeaveBookingInput {
  return aLeaveBookingInput({ employee_id: employeeId, leave_type_id: ANNUAL.id, ...overrides });
}

/** Writes records in one import transaction at the clock's current time. */
export async function seed(
  world: TestWorld,
  organisationId: string,
  data: {
    employees?: EmployeeInput[];
    leaveTypes?: LeaveTypeRecord[];
    bookings?: LeaveBookingInput[];
    closures?: ClosureDayInput[];
    publicHolidays?: { calendar: string; year: number; rows: { date: string; name: string }[] }[];
  },
): Promise<void> {
  const now = world.clock.now();
  await world.store.runImport(async (w) => {
    if (data.employees) await w.upsertEmployees(organisationId, data.employees, now);
    await w.upsertLeaveTypes(organisationId, data.leaveTypes ?? [ANNUAL, SICK], now);
    if (data.bookings) await w.upsertLeaveBookings(organisationId, data.bookings, now);
    if (data.closures) await w.upsertClosureDays(organisationId, data.closures, now);
    for (const p of data.publicHolidays ?? []) await w.replacePublicHolidays(organisationId, p.calendar, p.year, p.rows);
  });
}
