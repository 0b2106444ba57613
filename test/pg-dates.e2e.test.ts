/**
 * On Postgres, dates stay dates whatever the time zone: a booking imported and read back
 * by `leaveapi` processes running with TZ=America/Los_Angeles or TZ=Pacific/Kiritimati
 * (UTC-8 and UTC+14 on these days), on sessions whose own time zone is odd too, shows
 * exactly the DATE values and instants that were imported. pg's default DATE parser
 * would make a local midnight of each date, which Kiritimati turns into the day before.
 */
import { beforeAll, expect, test } from "bun:test";
import { runJson, startServer, type RunningServer } from "./cli-harness.ts";
import { queryDatabase, scratchDatabases } from "./pg-scratch.ts";

const servers: RunningServer[] = [];
const newDatabase = scratchDatabases("dates", async () => {
  for (const code of await Promise.all(servers.map((s) => s.stop()))) expect(code).toBe(0);
});

const EMPLOYEE = {
  external_id: "TZ-1",
  first_name: "Tess",
  last_name: "Zone",
  status: "active",
  start_date: "2026-03-01",
  leaving_date: "2026-12-31",
  holiday_calendar: null,
};
const BOOKING = {
  external_id: "TZ-LEAVE-1",
  employee_external_id: "TZ-1",
  leave_type: { name: "Annual leave", category: "annual", is_paid: true },
  start_date: "2026-03-01",
  end_date: "2026-03-02",
  status: "approved",
  requested_at: "2026-03-01T00:30:00Z",
  reviewed_at: "2026-03-01T23:59:59Z",
  cancelled_at: null,
};
const CLOSURE = { type: "company", date: "2026-03-02", name: "Stocktake", applies_to: "all", department: null, location: null, deducts_from_leave: false };

let baseUrl: string;

beforeAll(async () => {
  baseUrl = await newDatabase();
});

/** `url` with a session time zone set through libpq's `options` parameter. */
function withSessionTimeZone(url: string, zone: string): string {
  const u = new URL(url);
  u.searchParams.set("options", `-c timezone=${zone}`);
  return u.toString();
}

test("the child processes really run in the time zones these tests name", async () => {
  const offsets: Record<string, number> = {};
  for (const zone of ["America/Los_Angeles", "Pacific/Kiritimati"]) {
    const proc = Bun.spawn([process.execPath, "-e", "console.log(new Date(2026, 2, 1).getTimezoneOffset())"], {
      env: { ...process.env, TZ: zone },
      stdout: "pipe",
    });
    offsets[zone] = Number(await new Response(proc.stdout).text());
    expect(await proc.exited).toBe(0);
  }
  expect(offsets).toEqual({ "America/Los_Angeles": 480, "Pacific/Kiritimati": -840 });
});

test("a session time zone given in the URL reaches the Postgres session", async () => {
  const rows = await queryDatabase<{ TimeZone: string }>(withSessionTimeZone(baseUrl, "Pacific/Kiritimati"), "show timezone");
  expect(rows).toEqual([{ TimeZone: "Pacific/Kiritimati" }]);
});

const CASES = [
  { processZone: "America/Los_Angeles", sessionZone: undefined },
  { processZone: "Pacific/Kiritimati", sessionZone: undefined },
  { processZone: "America/Los_Angeles", sessionZone: "Pacific/Kiritimati" },
  { processZone: "Pacific/Kiritimati", sessionZone: "America/Los_Angeles" },
] as const;

for (const { processZone, sessionZone } of CASES) {
  test(`TZ=${processZone}, session time zone ${sessionZone ?? "the server's"}: dates and instants come back exactly as imported`, async () => {
    const url = sessionZone === undefined ? baseUrl : withSessionTimeZone(baseUrl, sessionZone);
    const options = { env: { TZ: processZone } };
    const db = ["--database-url", url];
    const org = await runJson<{ id: string }>([...db, "org", "create", "--name", `Zone ${processZone} / ${sessionZone ?? "server"}`], options);
    await runJson([...db, "org", "enable-api", org.id], options);
    const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org.id], options);
    for (const [kind, record] of [
      ["employees", EMPLOYEE],
      ["leave", BOOKING],
      ["holidays", CLOSURE],
    ] as const) {
      await runJson([...db, "import", "--org", org.id, "--kind", kind, "-"], { ...options, stdin: `${JSON.stringify(record)}\n` });
    }

    const server = await startServer(db, options);
    servers.push(server);
    const tokenRes = await fetch(`${server.baseUrl}/v1/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: creds.client_id, client_secret: creds.client_secret }),
    });
    expect(tokenRes.status).toBe(200);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const get = async <T>(path: string): Promise<T> => {
      const res = await fetch(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${access_token}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as T;
    };

    type Page<T> = { data: T[] };
    const employees = await get<Page<{ start_date: string; leaving_date: string }>>("/v1/employees");
    expect(employees.data.map((e) => [e.start_date, e.leaving_date])).toEqual([["2026-03-01", "2026-12-31"]]);

    // The range filters compare dates too: the booking's first day alone finds it, the day after its last does not.
    type Leave = { start_date: string; end_date: string; requested_at: string; reviewed_at: string; cancelled_at: null };
    const firstDay = await get<Page<Leave>>("/v1/leave-requests?from=2026-03-01&to=2026-03-01");
    expect(firstDay.data).toHaveLength(1);
    const leave = firstDay.data[0]!;
    expect([leave.start_date, leave.end_date]).toEqual(["2026-03-01", "2026-03-02"]);
    expect(leave.requested_at).toBe("2026-03-01T00:30:00.000Z");
    expect(leave.reviewed_at).toBe("2026-03-01T23:59:59.000Z");
    expect(leave.cancelled_at).toBeNull();
    expect((await get<Page<Leave>>("/v1/leave-requests?from=2026-03-03&to=2026-03-31")).data).toEqual([]);
    expect((await get<Page<Leave>>("/v1/leave-requests?from=2026-02-01&to=2026-02-28")).data).toEqual([]);

    const holidays = await get<Page<{ date: string; type: string; name: string }>>("/v1/holidays?from=2026-03-02&to=2026-03-02");
    expect(holidays.data.filter((h) => h.type === "company").map((h) => [h.date, h.name])).toEqual([["2026-03-02", "Stocktake"]]);
  }, 30_000);
}
