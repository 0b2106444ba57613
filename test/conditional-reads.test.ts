/**
 * Conditional reads (docs/api.md, "Conditional reads"; server/conditional.ts,
 * lib/conditional-reads.ts): every data answer carries a weak ETag; If-None-Match with the
 * current one is 304 with the 200's describing headers and no body, without the page read
 * and without spending the read budget; the tag changes with an import, a holidays import,
 * a restriction and the release; no 304 is ever given before authentication, to another
 * credential's tag, or in place of a 410. Runs on the test store (SQLite; Postgres through
 * test/postgres-suites.ts), and on the memory store and a store without data versions.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { entityTag, matchesWeakly, parseIfNoneMatch } from "../lib/conditional-reads.ts";
import { mintClient } from "../lib/credentials.ts";
import { parseRestriction } from "../lib/restriction.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import type { Store } from "../lib/store.ts";
import { createHandler } from "../server/handler.ts";
import { aClosureDayInput } from "../testing/record-builders.ts";
import { ONE_SECOND } from "./data-fixtures.ts";
import { BASE, authorisedOrganisation, createWorld, employee, fakeClock, requestToken, seed, type TestWorld } from "./support.ts";

const DAY = 86_400_000;
const PATHS = [
  "/v1/employees?limit=2",
  "/v1/leave-requests?from=2026-01-01&to=2026-12-31",
  "/v1/holidays?from=2026-01-01&to=2026-12-31",
  "/v1/deletions?resource=employees&updated_since=2026-02-01T00:00:00Z",
];

/** An organisation of two employees in Sales and Engineering, a closure day, and a client reading it all. */
async function organisation(options: Parameters<typeof createWorld>[0] = {}) {
  const world = await createWorld(options);
  const reader = await authorisedOrganisation(world);
  const sales = employee({ department: "Sales", holiday_calendar: "GB-ENG" });
  const eng = employee({ department: "Engineering", holiday_calendar: "GB-SCT" });
  await seed(world, reader.organisationId, { employees: [sales, eng], closures: [aClosureDayInput({ date: "2026-12-24", applies_to: "all" })] });
  world.clock.advance(ONE_SECOND);
  return { world, reader, sales, eng };
}

/** A second client of the organisation, restricted as given. */
async function clientOf(world: TestWorld, organisationId: string, restriction?: string) {
  const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "second", world.clock.now());
  await world.store.createClient(restriction ? { ...client, restriction: parseRestriction({ departments: restriction }, world.clock.now()) } : client);
  const { body } = await requestToken(world, { organisationId, clientId: client.client_id, clientSecret: secret });
  const token = body.access_token as string;
  return {
    clientId: client.client_id,
    get: (path: string, headers: Record<string, string> = {}) => world.call(path, { headers: { Authorization: `Bearer ${token}`, ...headers } }),
  };
}

async function tagOf(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  const tag = res.headers.get("etag");
  expect(tag).toMatch(/^W\/"[0-9a-f]{32}"$/);
  return tag!;
}

describe("an unchanged answer", () => {
  test("every data answer carries a weak ETag; sent back, it is 304 with the 200's headers and no body, for GET and HEAD", async () => {
    const { world, reader, sales } = await organisation();
    for (const path of [...PATHS, `/v1/employees/${sales.id}`]) {
      const tag = await tagOf(await reader.get(path));
      expect(await tagOf(await reader.get(path))).toBe(tag);
      for (const method of ["GET", "HEAD"]) {
        const res = await world.call(path, { method, headers: { Authorization: `Bearer ${reader.token}`, "If-None-Match": tag, "X-Request-Id": "poll-1" } });
        expect({ path, method, status: res.status, body: await res.text() }).toEqual({ path, method, status: 304, body: "" });
        expect(res.headers.get("etag")).toBe(tag);
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(res.headers.get("vary")).toBe("Accept-Encoding");
        expect(res.headers.get("x-request-id")).toBe("poll-1");
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        expect(res.headers.get("content-type")).toBeNull();
        expect(res.headers.get("content-length")).toBeNull();
      }
      // In a list, strong or weak alike (RFC 9110 §13.1.2 compares weakly); a tag of nothing is a 200.
      expect((await reader.get(path, { "If-None-Match": `"other", ${tag.slice(2)}` })).status).toBe(304);
      expect((await reader.get(path, { "If-None-Match": 'W/"other", garbage' })).status).toBe(200);
    }
  });

  test("the same tag whatever the coding asked: a gzip-coded page and a plain one are one answer", async () => {
    const { reader } = await organisation();
    const plain = await tagOf(await reader.get(PATHS[2]!));
    const coded = await reader.get(PATHS[2]!, { "Accept-Encoding": "gzip" });
    expect(await tagOf(coded)).toBe(plain);
    expect((await reader.get(PATHS[2]!, { "Accept-Encoding": "gzip", "If-None-Match": plain })).status).toBe(304);
  });

  test("`*` is 304 for an answer that exists, and never hides a 400", async () => {
    const { reader } = await organisation();
    expect((await reader.get(PATHS[0]!, { "If-None-Match": "*" })).status).toBe(304);
    expect((await reader.get("/v1/employees?limit=0", { "If-None-Match": "*" })).status).toBe(400);
    expect((await reader.get("/v1/employees?limit=0", { "If-None-Match": 'W/"0123456789abcdef0123456789abcdef"' })).status).toBe(400);
    expect((await reader.get(`/v1/employees/${crypto.randomUUID()}`, { "If-None-Match": "*" })).status).toBe(404);
  });
});

describe("the tag changes whenever the answer could", () => {
  test("an import that writes to the organisation; another organisation's import does not", async () => {
    const { world, reader, sales } = await organisation();
    const before = await Promise.all(PATHS.map(async (p) => tagOf(await reader.get(p))));
    const other = await authorisedOrganisation(world);
    await seed(world, other.organisationId, { employees: [employee()] });
    for (const [i, p] of PATHS.entries()) expect((await reader.get(p, { "If-None-Match": before[i]! })).status).toBe(304);
    world.clock.advance(ONE_SECOND);
    await seed(world, reader.organisationId, { employees: [{ ...sales, job_title: "Head of Sales" }] });
    for (const [i, p] of PATHS.entries()) {
      const res = await reader.get(p, { "If-None-Match": before[i]! });
      expect({ p, status: res.status }).toEqual({ p, status: 200 });
      expect(await tagOf(res)).not.toBe(before[i]);
    }
  });

  test("an import of public holidays alone", async () => {
    const { world, reader } = await organisation();
    const before = await tagOf(await reader.get(PATHS[2]!));
    await seed(world, reader.organisationId, { publicHolidays: [{ calendar: "GB-ENG", year: 2026, rows: [{ date: "2026-07-01", name: "Founders' day" }] }] });
    const after = await reader.get(PATHS[2]!, { "If-None-Match": before });
    expect(after.status).toBe(200);
    expect(JSON.stringify(await after.json())).toContain("Founders' day");
  });

  test("an erasure: an import of deletions like any other", async () => {
    const { world, reader, eng } = await organisation();
    const before = await tagOf(await reader.get(PATHS[0]!));
    await world.store.runImport((w) => w.deleteEmployees(reader.organisationId, [eng.id], world.clock.now()));
    expect((await reader.get(PATHS[0]!, { "If-None-Match": before })).status).toBe(200);
  });

  test("a change of the credential's restriction; another credential's tag is never 304", async () => {
    const { world, reader } = await organisation();
    const bySales = await clientOf(world, reader.organisationId, "Sales");
    const unrestricted = await clientOf(world, reader.organisationId);
    // Without updated_since: the restricted credential's syncs from before its restriction are 410.
    for (const path of PATHS.slice(0, 3)) {
      const tag = await tagOf(await reader.get(path));
      expect((await bySales.get(path, { "If-None-Match": tag })).status).toBe(200);
      expect((await unrestricted.get(path, { "If-None-Match": tag })).status).toBe(200);
    }
    const before = await tagOf(await bySales.get(PATHS[0]!));
    world.clock.advance(ONE_SECOND);
    await world.store.restrictClient!(bySales.clientId, parseRestriction({ departments: "Engineering" }, world.clock.now()));
    const after = await bySales.get(PATHS[0]!, { "If-None-Match": before });
    expect(after.status).toBe(200);
    expect(await tagOf(after)).not.toBe(before);
  });

  test("the release: a host's upgrade changes every tag", () => {
    const key = new Uint8Array(32);
    const request = { organisationId: "o", clientId: "c", restriction: undefined, url: new URL(`${BASE}/v1/employees?limit=2&status=active`) };
    const tag = entityTag(key, "v1", request, "leaveapi 1");
    expect(entityTag(key, "v1", request, "leaveapi 2")).not.toBe(tag);
    expect(entityTag(key, "v2", request, "leaveapi 1")).not.toBe(tag);
    expect(entityTag(key, "v1", { ...request, url: new URL(`${BASE}/v1/employees?limit=3&status=active`) }, "leaveapi 1")).not.toBe(tag);
    // Keyed: another installation's tag for the same request is another.
    expect(entityTag(new Uint8Array(32).fill(1), "v1", request, "leaveapi 1")).not.toBe(tag);
    expect(matchesWeakly(parseIfNoneMatch(` "x" ,${tag}`), tag)).toBe(true);
    expect(parseIfNoneMatch("*").kind).toBe("any");
    expect(parseIfNoneMatch("x, y").kind).toBe("none");
  });
});

describe("what a 304 never does", () => {
  test("answer before authentication: no token, a bad one, or one without the scope", async () => {
    const { world, reader } = await organisation();
    const tag = await tagOf(await reader.get(PATHS[0]!));
    expect((await world.call(PATHS[0]!, { headers: { "If-None-Match": tag } })).status).toBe(401);
    expect((await world.call(PATHS[0]!, { headers: { "If-None-Match": tag, Authorization: `Bearer svct_${"A".repeat(43)}` } })).status).toBe(401);
    const leaveOnly = await authorisedOrganisation(world, ["leave:read"]);
    expect((await leaveOnly.get(PATHS[0]!, { "If-None-Match": tag })).status).toBe(403);
  });

  test("stand for a 410: the deletions feed's horizon passes while nothing is imported", async () => {
    const { world, reader } = await organisation();
    const since = new Date(world.clock.now()).toISOString();
    const path = `/v1/deletions?resource=employees&updated_since=${since}`;
    const tag = await tagOf(await reader.get(path));
    /** A GET with a token fetched now: the horizon is days away, a token lasts an hour. */
    const getNow = async (headers: Record<string, string>) => {
      const { body } = await requestToken(world, reader.client);
      return world.call(path, { headers: { Authorization: `Bearer ${body.access_token as string}`, ...headers } });
    };
    world.clock.advance(2 * 3_600_000);
    expect((await getNow({ "If-None-Match": tag })).status).toBe(304);
    world.clock.advance(91 * DAY);
    const res = await getNow({ "If-None-Match": tag });
    expect(res.status).toBe(410);
    expect((await res.json()).error).toBe("sync_expired");
  });

  test("spend the read budget: 304s go on past it, a full read does not", async () => {
    const { reader } = await organisation({ readRateLimit: { perSecond: 1, burst: 2 } });
    const tag = await tagOf(await reader.get(PATHS[0]!));
    await reader.get(PATHS[1]!);
    for (let i = 0; i < 20; i++) expect((await reader.get(PATHS[0]!, { "If-None-Match": tag })).status).toBe(304);
    expect((await reader.get(PATHS[0]!)).status).toBe(429);
    // A tag that no longer matches is a full read, and counts.
    expect((await reader.get(PATHS[0]!, { "If-None-Match": 'W/"old"' })).status).toBe(429);
  });
});

/** A memory store's organisation with a client, and GET /v1/employees with its token on a handler over the store (`hostLike`: without its data versions). */
async function memoryOrganisation(hostLike: boolean) {
  const clock = fakeClock();
  const memory = createMemoryStore();
  const { dataVersion: _ignored, ...withoutVersions } = memory;
  const store: Store = hostLike ? withoutVersions : memory;
  const organisationId = crypto.randomUUID();
  await memory.createOrganisation({ id: organisationId, name: "Mem", api_enabled: true, created_at: clock.now() });
  const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "m", clock.now());
  await memory.createClient(client);
  const handler = createHandler({ store, now: clock.now });
  const tokenRes = await handler(
    new Request(`${BASE}/v1/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}` },
      body: "grant_type=client_credentials",
    }),
  );
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const get = (headers: Record<string, string> = {}) =>
    handler(new Request(`${BASE}/v1/employees`, { headers: { Authorization: `Bearer ${token}`, ...headers } }));
  return { memory, organisationId, clock, get };
}

describe("stores", () => {
  test("the memory store keeps a data version: an import changes the tag", async () => {
    const { memory, organisationId, clock, get } = await memoryOrganisation(false);
    const tag = await tagOf(await get());
    expect((await get({ "If-None-Match": tag })).status).toBe(304);
    await memory.runImport((w) => w.upsertEmployees(organisationId, [employee()], clock.now()));
    expect((await get({ "If-None-Match": tag })).status).toBe(200);
  });

  test("a store without data versions answers no ETag and never 304", async () => {
    const { get } = await memoryOrganisation(true);
    for (const inm of [null, "*", 'W/"x"']) {
      const res = await get(inm ? { "If-None-Match": inm } : {});
      expect(res.status).toBe(200);
      expect(res.headers.get("etag")).toBeNull();
    }
  });
});
