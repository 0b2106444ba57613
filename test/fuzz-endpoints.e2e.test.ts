/**
 * Property-based fuzzing of every endpoint through the one handler (issue 8): random
 * paths, methods, query strings, Authorization headers, X-Request-Id values, token
 * request bodies and content types. Every answer must have the status fuzz-oracle.ts
 * derives from docs/api.md ("Credentials and tokens", "Errors", "Query parameters"), never a 3xx or 5xx, the headers of "HTTP behaviour", and for an error
 * the JSON body `{error, error_description[, param]}`.
 *
 * 10,000 cases a run (7,000 + 3,000), from a fixed seed: FUZZ_SEED=N replays another run,
 * FUZZ_RUNS=N changes the count. A failure prints the seed and fast-check's path, which
 * replay the shrunk counterexample exactly.
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { ALL_SCOPES, type Scope } from "../lib/scopes.ts";
import {
  authorisedOrganisation,
  BASE,
  booking,
  createClient,
  createOrganisation,
  createWorld,
  employee,
  requestToken,
  seed,
  type TestWorld,
} from "./support.ts";
import { bearerHeader, methodArb, pathArb, queryString, requestIdArb, type FuzzFixtures } from "./fuzz-arbitraries.ts";
import { holdsSecretMarker } from "../lib/url-credentials.ts";
import { expectedData, expectedToken, type ClientFacts, type Expected, type OracleFacts } from "./fuzz-oracle.ts";
import { tokenCase } from "./fuzz-token-arbitraries.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const DATA_RUNS = Math.round(RUNS * 0.7);
const TOKEN_RUNS = RUNS - DATA_RUNS;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

let casesRun = 0;
/** Statuses answered, so that a generator that stops reaching a row of §3 fails the run. */
const seen = new Map<number, number>();

/** fast-check's report (seed, path, counterexample) with how to replay it, as the test's failure. */
async function check<T>(property: fc.IAsyncPropertyWithHooks<T>, numRuns: number): Promise<void> {
  const details = await fc.check(property, { seed: SEED, numRuns });
  casesRun += details.numRuns;
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `${fc.defaultReportMessage(details)}\n${cause}\nReplay: FUZZ_SEED=${SEED} bun test test/fuzz-endpoints.e2e.test.ts (fast-check path ${details.counterexamplePath})`,
    );
  }
}

function fail(what: string, req: Request, expected: Expected, res: Response, body: unknown): never {
  throw new Error(
    `${what}\n  ${req.method} ${req.url}\n  authorization: ${JSON.stringify(req.headers.get("authorization"))}\n  expected ${JSON.stringify(expected)}\n  got ${res.status} ${JSON.stringify(body)} ${JSON.stringify([...res.headers])}`,
  );
}

/** Everything an answer must satisfy beyond its status: the error bodies and headers of docs/api.md. */
async function checkAnswer(req: Request, res: Response, expected: Expected): Promise<Record<string, unknown> | null> {
  seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
  const text = await res.text();
  let body: Record<string, unknown> | null = null;
  if (text !== "") {
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      fail("the body is not JSON", req, expected, res, text);
    }
  }
  const bad = (what: string): never => fail(what, req, expected, res, body ?? text);
  if (res.status !== expected.status) bad("wrong status");
  if (res.headers.get("content-type") !== "application/json") bad("Content-Type is not application/json");
  if (res.headers.get("cache-control") !== "no-store") bad("no Cache-Control: no-store");
  if (res.headers.get("x-content-type-options") !== "nosniff") bad("no X-Content-Type-Options: nosniff");
  const incoming = req.headers.get("x-request-id");
  const requestId = res.headers.get("x-request-id") ?? "";
  // §9's pattern, except an id holding a token marker: never echoed, so never logged (SECURITY.md).
  const echoable = incoming !== null && REQUEST_ID.test(incoming) && !holdsSecretMarker(incoming);
  if (!REQUEST_ID.test(requestId) || (incoming !== null && echoable !== (requestId === incoming))) bad("X-Request-Id not echoed or replaced as §9 says");
  if ([...res.headers.keys()].some((h) => h.startsWith("access-control-"))) bad("an Access-Control-* header");
  if (res.headers.get("www-authenticate") !== expected.challenge) bad("wrong WWW-Authenticate");
  if (expected.allow !== undefined && res.headers.get("allow") !== expected.allow) bad("wrong Allow");
  if (new URL(req.url).pathname === "/v1/oauth/token" && res.headers.get("pragma") !== "no-cache") bad("no Pragma: no-cache on the token endpoint");
  if (req.method === "HEAD") return text === "" ? null : bad("a body on HEAD");
  if (body === null || typeof body !== "object" || Array.isArray(body)) return bad("the body is not a JSON object");
  if (expected.error !== undefined) {
    const keys = Object.keys(body).sort().join(",");
    if (keys !== (expected.params ? "error,error_description,param" : "error,error_description")) bad("error body keys");
    if (body.error !== expected.error) bad("wrong error code");
    if (typeof body.error_description !== "string" || !/^[^\n]{10,300}$/.test(body.error_description)) bad("error_description is not one sentence");
    if (expected.params && !expected.params.includes(body.param as string)) bad("param names none of the faulty parameters");
  }
  return body;
}

/** A world with two organisations' data and a token of every kind the oracle tells apart. */
async function dataWorld(): Promise<{ world: TestWorld; fixtures: FuzzFixtures; facts: OracleFacts }> {
  const world = await createWorld();
  const own = await authorisedOrganisation(world);
  const other = await authorisedOrganisation(world);
  const ownEmployees = Array.from({ length: 5 }, (_, i) => employee({ first_name: `Own${i}` }));
  const otherEmployees = [employee(), employee()];
  await seed(world, own.organisationId, { employees: ownEmployees, bookings: ownEmployees.map((e) => booking(e.id)) });
  await seed(world, other.organisationId, { employees: otherEmployees, bookings: otherEmployees.map((e) => booking(e.id)) });

  const tokens = new Map<string, { live: boolean; scopes: readonly string[] }>([[own.token, { live: true, scopes: ALL_SCOPES }]]);
  const mint = async (organisationId: string, scopes: Scope[]) => {
    const client = await createClient(world, organisationId, scopes);
    return { client, token: (await requestToken(world, client)).body.access_token as string };
  };
  for (const scopes of [["employees:read"], ["leave:read", "holidays:read"]] as Scope[][])
    tokens.set((await mint(own.organisationId, scopes)).token, { live: true, scopes });
  const started = world.clock.now();
  world.clock.set(started - 2 * 3600_000);
  tokens.set((await mint(own.organisationId, [...ALL_SCOPES])).token, { live: false, scopes: ALL_SCOPES });
  world.clock.set(started);
  const revoked = await mint(own.organisationId, [...ALL_SCOPES]);
  await world.store.revokeClient(revoked.client.clientId, started);
  tokens.set(revoked.token, { live: false, scopes: ALL_SCOPES });
  const disabledOrg = await createOrganisation(world, "Switched Off Ltd");
  const disabled = await mint(disabledOrg, [...ALL_SCOPES]);
  await world.store.setApiEnabled(disabledOrg, false);
  tokens.set(disabled.token, { live: false, scopes: ALL_SCOPES });
  tokens.set(`svct_${"A".repeat(43)}`, { live: false, scopes: ALL_SCOPES });
  tokens.set("not-a-token", { live: false, scopes: ALL_SCOPES });

  const nextCursor = async (path: string) => ((await (await own.get(path)).json()) as { next_cursor: string }).next_cursor;
  const employeesCursor = await nextCursor("/v1/employees?limit=1");
  const leaveCursor = await nextCursor("/v1/leave-requests?from=2026-01-01&to=2026-12-31&limit=1");
  const fixtures: FuzzFixtures = {
    ownEmployeeIds: ownEmployees.map((e) => e.id),
    otherEmployeeIds: otherEmployees.map((e) => e.id),
    tokens: [...tokens.keys()],
    cursors: [employeesCursor, leaveCursor],
  };
  const facts: OracleFacts = {
    tokens,
    ownEmployeeIds: new Set(fixtures.ownEmployeeIds),
    cursors: new Map([
      [employeesCursor, { endpoint: "employees" }],
      [leaveCursor, { endpoint: "leave-requests", from: "2026-01-01", to: "2026-12-31" }],
    ]),
  };
  return { world, fixtures, facts };
}

const paddingArb = fc.oneof({ weight: 30, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 7800, max: 8400 }) });

test(`every path, method, query and Authorization header: the status docs/api.md lists, never a 5xx (${DATA_RUNS} cases)`, async () => {
  const { world, fixtures, facts } = await dataWorld();
  const property = fc.asyncProperty(
    methodArb,
    pathArb(fixtures),
    queryString(fixtures),
    bearerHeader(fixtures),
    requestIdArb,
    paddingArb,
    async (method, path, query, authorization, requestId, padding) => {
      const headers = new Headers();
      if (authorization !== null) headers.set("Authorization", authorization);
      if (requestId !== null) headers.set("X-Request-Id", requestId);
      if (padding > 0) headers.set("X-Padding", "p".repeat(padding));
      const req = new Request(`${BASE}${path}${query === "" ? "" : `?${query}`}`, { method, headers });
      const expected = expectedData(req, facts);
      const res = await world.handler(req.clone(), { remoteAddress: "127.0.0.1" });
      const body = await checkAnswer(req, res, expected);
      if (res.status === 200 && body && /^\/v1\/(employees|leave-requests|holidays)/.test(new URL(req.url).pathname) && !("data" in body))
        fail("a 200 without data", req, expected, res, body);
    },
  );
  await check(property, DATA_RUNS);
}, 120_000);

test(`token requests of every body, content type and Authorization: the status docs/api.md gives (${TOKEN_RUNS} cases)`, async () => {
  const world = await createWorld();
  const enabled = await createOrganisation(world, "On Ltd");
  const disabledOrg = await createOrganisation(world, "Off Ltd", false);
  const made = [
    { scopes: [...ALL_SCOPES], org: enabled, revoked: false },
    { scopes: ["employees:read"] as Scope[], org: enabled, revoked: false },
    { scopes: [...ALL_SCOPES], org: enabled, revoked: true },
    { scopes: ["leave:read"] as Scope[], org: disabledOrg, revoked: false },
  ];
  const clients = new Map<string, ClientFacts>();
  for (const m of made) {
    const c = await createClient(world, m.org, m.scopes);
    if (m.revoked) await world.store.revokeClient(c.clientId, world.clock.now());
    clients.set(c.clientId, { secret: c.clientSecret, scopes: m.scopes, revoked: m.revoked, apiEnabled: m.org === enabled });
  }
  const property = fc.asyncProperty(tokenCase(clients), async (c) => {
    // Each case in a fresh rate-limit window: the limits have their own tests (rate-limits.test.ts).
    world.clock.advance(61_000);
    const headers = new Headers();
    if (c.contentType !== null) headers.set("Content-Type", c.contentType);
    if (c.authorization !== null) headers.set("Authorization", c.authorization);
    const hasBody = c.method !== "GET" && c.method !== "HEAD";
    const req = new Request(`${BASE}/v1/oauth/token${c.query}`, { method: c.method, headers, body: hasBody ? c.body : undefined });
    const expected = expectedToken(req, hasBody ? c.body : new Uint8Array(), c.basic, clients);
    const res = await world.handler(req.clone(), { remoteAddress: "127.0.0.1" });
    const body = await checkAnswer(req, res, expected);
    if (expected.status === 200) {
      const keys = Object.keys(body ?? {})
        .sort()
        .join(",");
      const ok =
        keys === "access_token,expires_in,scope,token_type" &&
        /^svct_[A-Za-z0-9_-]{43}$/.test(String(body?.access_token)) &&
        body?.token_type === "Bearer" &&
        body?.expires_in === 3600 &&
        body?.scope === expected.scope;
      if (!ok) fail("not the token response §2 describes", req, expected, res, body);
    }
  });
  await check(property, TOKEN_RUNS);
}, 120_000);

test("at least 10,000 cases ran, and they reached every status the oracle knows", () => {
  expect(casesRun).toBeGreaterThanOrEqual(Math.min(RUNS, 10_000));
  if (RUNS >= 10_000) expect([...seen.keys()].sort()).toEqual([200, 400, 401, 403, 404, 405, 413, 414, 431]);
});
