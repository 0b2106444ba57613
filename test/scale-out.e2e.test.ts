/**
 * Two `leaveapi serve` processes on one Postgres database behave as one service: tokens,
 * revocations, API switches, rate limits and cursors are shared through the database,
 * and changes made with the command line reach both within 5 s.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { runJson, startServer, type RunningServer } from "./cli-harness.ts";
import { pollUntil, scratchDatabases } from "./pg-scratch.ts";

const EXAMPLES = join(import.meta.dir, "../examples/import");

interface Credentials {
  client_id: string;
  client_secret: string;
}

let a: RunningServer | undefined;
let b: RunningServer | undefined;
let db: string[];
let orgId: string;

// The servers stop (cleanly) before their database is dropped.
const newDatabase = scratchDatabases("scale_out", async () => {
  const codes = await Promise.all([a?.stop(), b?.stop()]);
  expect(codes).toEqual([0, 0]);
});

async function createOrganisation(name: string): Promise<string> {
  const org = await runJson<{ id: string }>([...db, "org", "create", "--name", name]);
  await runJson([...db, "org", "enable-api", org.id]);
  return org.id;
}

const newClient = (organisationId = orgId) => runJson<Credentials>([...db, "credentials", "create", "--org", organisationId]);

function requestToken(server: RunningServer, c: Credentials): Promise<Response> {
  return fetch(`${server.baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${c.client_id}:${c.client_secret}`)}` },
    body: "grant_type=client_credentials",
  });
}

async function tokenFrom(server: RunningServer, c: Credentials): Promise<string> {
  const res = await requestToken(server, c);
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const get = (server: RunningServer, path: string, token: string) => fetch(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });

/** Polls both servers until each refuses `token` with 401; resolves to how long that took. */
async function refusedByBoth(token: string): Promise<number> {
  let last: number[] = [];
  const { elapsedMs } = await pollUntil(
    "the token refused by both instances",
    5000,
    async () => {
      last = await Promise.all([a!, b!].map(async (s) => (await get(s, "/v1/employees?limit=1", token)).status));
      return last.every((s) => s === 401) ? true : undefined;
    },
    () => `last statuses from A and B: ${last.join(", ")}`,
  );
  return elapsedMs;
}

beforeAll(async () => {
  db = ["--database-url", await newDatabase()];
  orgId = await createOrganisation("Scale-out Ltd");
  for (const kind of ["employees", "leave", "holidays"]) {
    await runJson([...db, "import", "--org", orgId, "--kind", kind, join(EXAMPLES, `${kind}.jsonl`)]);
  }
  // Settled, not all: a server that did start must still be stopped if the other did not.
  const started = await Promise.allSettled([startServer(db), startServer(db)]);
  [a, b] = started.map((r) => (r.status === "fulfilled" ? r.value : undefined));
  for (const r of started) if (r.status === "rejected") throw r.reason;
}, 60_000);

test("a token minted on one instance works on the other", async () => {
  const creds = await newClient();
  const fromA = await tokenFrom(a!, creds);
  const fromB = await tokenFrom(b!, creds);
  for (const [server, token] of [
    [b!, fromA],
    [a!, fromB],
  ] as const) {
    const res = await get(server, "/v1/employees", token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(3);
  }
});

test("credentials revoked on the command line are refused by both instances within 5 s", async () => {
  const creds = await newClient();
  const token = await tokenFrom(a!, creds);
  expect((await get(b!, "/v1/employees", token)).status).toBe(200);
  await runJson([...db, "credentials", "revoke", creds.client_id]);
  expect(await refusedByBoth(token)).toBeLessThanOrEqual(5000);
  for (const server of [a!, b!]) {
    const res = await requestToken(server, creds);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
  }
});

test("org disable-api on the command line stops both instances within 5 s", async () => {
  const otherOrg = await createOrganisation("Switched-off Ltd");
  const creds = await newClient(otherOrg);
  const tokens = [await tokenFrom(a!, creds), await tokenFrom(b!, creds)];
  await runJson([...db, "org", "disable-api", otherOrg]);
  for (const token of tokens) expect(await refusedByBoth(token)).toBeLessThanOrEqual(5000);
  for (const server of [a!, b!]) {
    const res = await requestToken(server, creds);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("unauthorized_client");
  }
  // The first organisation is untouched.
  expect((await requestToken(a!, await newClient())).status).toBe(200);
});

test("the 10-per-minute token limit counts requests to both instances together", async () => {
  const creds = await newClient();
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await requestToken(i % 2 === 0 ? a! : b!, creds)).status);
  expect(statuses).toEqual(Array(10).fill(200));
  for (const server of [b!, a!]) {
    const refused = await requestToken(server, creds);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { error: string }).error).toBe("too_many_requests");
  }
});

test("a cursor from one instance continues on the other", async () => {
  const token = await tokenFrom(a!, await newClient());
  const full = (await (await get(a!, "/v1/employees?limit=100", token)).json()) as { data: { id: string }[] };
  expect(full.data).toHaveLength(3);
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page === 0 || cursor !== null; page++) {
    const server = page % 2 === 0 ? a! : b!;
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await get(server, `/v1/employees?limit=1${query}`, token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: string }[]; next_cursor: string | null; has_more: boolean };
    seen.push(...body.data.map((e) => e.id));
    cursor = body.next_cursor;
    expect(page).toBeLessThan(5);
  }
  expect(seen).toEqual(full.data.map((e) => e.id));
});

test("20 concurrent token requests for one client across both instances yield exactly 10 tokens", async () => {
  const creds = await newClient();
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => requestToken(i % 2 === 0 ? a! : b!, creds)));
  const granted = responses.filter((r) => r.status === 200);
  const refused = responses.filter((r) => r.status === 429);
  expect([granted.length, refused.length]).toEqual([10, 10]);
  for (const r of refused) expect(r.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
  // Each granted token is distinct and works on either instance.
  const tokens = await Promise.all(granted.map(async (r) => ((await r.json()) as { access_token: string }).access_token));
  expect(new Set(tokens).size).toBe(10);
  const statuses = await Promise.all(tokens.map((t, i) => get(i % 2 === 0 ? b! : a!, "/v1/employees?limit=1", t).then((r) => r.status)));
  expect(statuses).toEqual(Array(10).fill(200));
});
