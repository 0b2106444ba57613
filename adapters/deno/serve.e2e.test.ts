/**
 * The handler on Deno (the `deno` dev dependency, offline): examples/deno-serve.ts serves it
 * with `Deno.serve` on the memory store and on SQLite through node:sqlite, and a client
 * completes a token and leave round trip over real HTTP.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../bun/sqlite.ts";
import { digestSecret } from "../../lib/credentials.ts";
import { writeFixture } from "../../testing/contract-fixture.ts";
import { ANNUAL, BOOKING, client, EMPLOYEE, listeningUrl, ORG, secret, SEED } from "../../test/host-seed.ts";

const ROOT = join(import.meta.dir, "../..");
const DENO = join(ROOT, "node_modules/.bin/deno");
interface DenoServer {
  baseUrl: string;
  stop: () => Promise<number>;
}

const running: DenoServer[] = [];
const scratch: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-deno-"));
  scratch.push(dir);
  return dir;
}

/** Runs examples/deno-serve.ts with only the permissions it is given, on a free port. */
async function serveOnDeno(permissions: string[], args: string[]): Promise<DenoServer> {
  const proc = Bun.spawn([DENO, "run", ...permissions, "examples/deno-serve.ts", "--port", "0", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "inherit",
    // Offline machines: never look for a newer Deno, never stop to ask for a permission.
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" },
  });
  const baseUrl = await listeningUrl(proc.stdout, proc.exited).catch((error) => {
    proc.kill();
    throw error;
  });
  const server = {
    baseUrl,
    stop: async () => {
      proc.kill("SIGTERM");
      return proc.exited;
    },
  };
  running.push(server);
  return server;
}

/** A token with Basic credentials, then the leave and the employee the seed holds; returns the token. */
async function roundTrip(baseUrl: string): Promise<string> {
  const refused = await fetch(`${baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${client.client_id}:svcs_wrong`)}` },
    body: new URLSearchParams({ grant_type: "client_credentials" }),
  });
  expect(refused.status).toBe(401);

  const tokenResponse = await fetch(`${baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}` },
    body: new URLSearchParams({ grant_type: "client_credentials", scope: "leave:read employees:read" }),
  });
  expect(tokenResponse.status).toBe(200);
  const token = (await tokenResponse.json()) as { access_token: string; token_type: string; scope: string };
  expect(token).toMatchObject({ token_type: "Bearer", scope: "employees:read leave:read" });
  const auth = { Authorization: `Bearer ${token.access_token}` };

  const leave = await fetch(`${baseUrl}/v1/leave-requests?from=2026-03-01&to=2026-03-31`, { headers: auth });
  expect(leave.status).toBe(200);
  const leaveBody = (await leave.json()) as { has_more: boolean; data: Record<string, unknown>[] };
  expect(leaveBody.has_more).toBe(false);
  expect(leaveBody.data).toEqual([
    {
      id: BOOKING,
      employee_id: EMPLOYEE,
      leave_type: { id: ANNUAL, name: "Annual leave", category: "annual", is_paid: true },
      start_date: "2026-03-02",
      end_date: "2026-03-04",
      start_half_day: false,
      start_half_period: null,
      end_half_day: true,
      end_half_period: "pm",
      days: 2.5,
      status: "approved",
      requested_at: "2026-01-05T00:00:00.000Z",
      reviewed_at: "2026-01-05T00:00:00.000Z",
      cancelled_at: null,
      updated_at: "2026-01-05T00:00:00.000Z",
    },
  ]);

  const employee = await fetch(`${baseUrl}/v1/employees/${EMPLOYEE}`, { headers: auth });
  expect(employee.status).toBe(200);
  expect(await employee.json()).toMatchObject({ data: { id: EMPLOYEE, first_name: "Ada", holiday_calendar: "gb-eng" } });

  // The token carries only the scopes asked for.
  expect((await fetch(`${baseUrl}/v1/holidays?from=2026-01-01&to=2026-12-31`, { headers: auth })).status).toBe(403);
  return token.access_token;
}

describe("Deno.serve", () => {
  test("on the memory store, seeded from a JSON file, under a base path", async () => {
    const dir = scratchDir();
    const seed = join(dir, "seed.json");
    writeFileSync(seed, JSON.stringify(SEED));
    const server = await serveOnDeno(["--allow-net=127.0.0.1", `--allow-read=${seed}`], ["--memory", "--seed", seed, "--base-path", "/hr-api"]);
    await roundTrip(`${server.baseUrl}/hr-api`);
    expect((await fetch(`${server.baseUrl}/v1/employees`)).status).toBe(404);
    running.splice(running.indexOf(server), 1);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  test("on a SQLite file that Bun's store created, read through node:sqlite", async () => {
    const dir = scratchDir();
    const filename = join(dir, "leaveapi.sqlite");
    const bunStore = openSqliteStore({ filename });
    await bunStore.migrate();
    await writeFixture(bunStore, SEED);
    await bunStore.close();
    const server = await serveOnDeno(["--allow-net=127.0.0.1", `--allow-read=${dir}`, `--allow-write=${dir}`], ["--sqlite", filename]);
    await roundTrip(server.baseUrl);
  }, 60_000);

  test("on a new SQLite file that Deno migrates and seeds itself", async () => {
    const dir = scratchDir();
    const seed = join(dir, "seed.json");
    writeFileSync(seed, JSON.stringify(SEED));
    const filename = join(dir, "new.sqlite");
    const server = await serveOnDeno(["--allow-net=127.0.0.1", `--allow-read=${dir}`, `--allow-write=${dir}`], ["--sqlite", filename, "--seed", seed]);
    const token = await roundTrip(server.baseUrl);
    running.splice(running.indexOf(server), 1);
    expect(await server.stop()).toBe(0);
    // What Deno wrote (the seed, and the token it issued) is there for Bun's store to read.
    const bunStore = openSqliteStore({ filename });
    expect(await bunStore.findToken(digestSecret(token))).toMatchObject({ organisation_id: ORG, client_id: client.client_id });
    expect((await bunStore.listEmployees({ organisationId: ORG, filters: {}, limit: 10 })).map((e) => e.id)).toEqual([EMPLOYEE]);
    await bunStore.close();
  }, 60_000);
});
