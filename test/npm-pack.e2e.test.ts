/**
 * The npm package as a Node user gets it: build the library, `npm pack`, install the
 * tarball from the registry's point of view into a scratch project outside the repository,
 * then from plain `node` (not Bun) open the Postgres store, mount the handler on node:http
 * under /hr-api and complete a token and employees round trip. The consumer's TypeScript
 * is checked against the installed declarations, and the Bun CLI in the tarball runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { scratchDatabases } from "./pg-scratch.ts";

const ROOT = join(import.meta.dir, "..");
const ENTRIES = ["index", "sqlite", "postgres", "node", "memory", "testing"];
const EMPLOYEE_ID = "0b7c9a52-3c1e-4f6a-9d2b-6e8f0a1b2c3d";

const scratch = mkdtempSync(join(tmpdir(), "leaveapi-npm-"));
const app = join(scratch, "app");
const newDatabase = scratchDatabases("npm_pack");
// The install holds tens of thousands of files: removed without blocking, with time to do it.
afterAll(() => rm(scratch, { recursive: true, force: true }), 180_000);

async function run(argv: string[], cwd: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  const proc = Bun.spawn(argv, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}:\n${stdout}\n${stderr}`);
  return { stdout, stderr };
}

/** The consumer: plain JavaScript for `node`, using only the package's public entry points. */
const MAIN_JS = `
import { createServer } from "node:http";
import { ALL_SCOPES, createHandler, mintClient } from "leaveapi";
import { openPostgresStore } from "leaveapi/postgres";
import { toNodeListener } from "leaveapi/node";

const store = openPostgresStore({ connectionString: process.env.DATABASE_URL });
await store.migrate();
const now = Date.now();
const organisationId = crypto.randomUUID();
await store.createOrganisation({ id: organisationId, name: "Node Ltd", api_enabled: true, created_at: now });
const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "npm e2e", now);
await store.createClient(client);
await store.runImport((w) => w.upsertEmployees(organisationId, [{
  id: "${EMPLOYEE_ID}", external_id: "E1", first_name: "Grace", last_name: "Hopper", preferred_name: null,
  job_title: "Rear Admiral", department: "Navy", status: "active", start_date: "1943-12-01", leaving_date: null,
  holiday_calendar: "US",
}], now));

const server = createServer(toNodeListener(createHandler({ store, basePath: "/hr-api" })));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = "http://127.0.0.1:" + server.address().port;
// A store that cannot connect: its StoreUnavailableError must reach the handler as a 503.
const down = openPostgresStore({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMs: 2000 });
try {
  const tokenRes = await fetch(base + "/hr-api/v1/oauth/token", {
    method: "POST",
    headers: { Authorization: "Basic " + btoa(client.client_id + ":" + secret), "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&scope=employees%3Aread",
  });
  const token = await tokenRes.json();
  const auth = { Authorization: "Bearer " + token.access_token };
  const employees = await fetch(base + "/hr-api/v1/employees", { headers: auth });
  const head = await fetch(base + "/hr-api/v1/employees", { method: "HEAD", headers: auth });
  const outside = await fetch(base + "/v1/employees", { headers: auth });
  const metadata = await (await fetch(base + "/hr-api/.well-known/oauth-authorization-server")).json();
  const health = await createHandler({ store: down })(new Request("http://localhost/healthz"));
  console.log(JSON.stringify({
    node: process.version,
    token: { status: tokenRes.status, pragma: tokenRes.headers.get("pragma"), token_type: token.token_type, scope: token.scope, expires_in: token.expires_in },
    employees: { status: employees.status, body: await employees.json() },
    head: { status: head.status, contentType: head.headers.get("content-type"), body: await head.text() },
    outside: outside.status,
    tokenEndpointUnderPrefix: metadata.token_endpoint === base + "/hr-api/v1/oauth/token",
    storeDown: health.status,
  }));
} finally {
  server.close();
  await Promise.all([store.close(), down.close()]);
}
`;

/** The consumer's TypeScript, checked against the installed package's declarations. */
const CHECK_TS = `
import { createServer } from "node:http";
import { ALL_SCOPES, ApiError, createHandler, mintClient, type AdminStore, type Handler, type HandlerOptions, type RequestLogEntry, type Store } from "leaveapi";
import { openPostgresStore, type PostgresStoreOptions } from "leaveapi/postgres";
import { toNodeListener, type NodeListener } from "leaveapi/node";
import { createMemoryStore } from "leaveapi/memory";
import { runStoreContract, type ContractFramework, type StoreUnderTest } from "leaveapi/testing";
import type { SqliteStoreOptions } from "leaveapi/sqlite";

const options: PostgresStoreOptions = { connectionString: "postgres://localhost/hr", schema: "hr" };
const store: Store & AdminStore = openPostgresStore(options);
const log = (entry: RequestLogEntry): void => console.log(entry.route, entry.status);
const handlerOptions: HandlerOptions = { store, basePath: "/hr-api", issuer: "https://example.com/hr-api", now: Date.now, log, tokenLimits: { perClient: 5 } };
const handler: Handler = createHandler(handlerOptions);
const listener: NodeListener = toNodeListener(handler, { trustProxy: true });
createServer(listener);
const answer: Promise<Response> = handler(new Request("http://localhost/hr-api/healthz"), { remoteAddress: "127.0.0.1" });
const memory: Store = createMemoryStore();
const error: Error = new ApiError(404, "not_found", "No such thing.");
const secret: string = mintClient("org", [...ALL_SCOPES], null, Date.now()).secret;
const sqlite: SqliteStoreOptions = { filename: ":memory:" };
declare const framework: ContractFramework;
runStoreContract({
  name: "memory",
  create: async (): Promise<StoreUnderTest> => {
    const fresh = createMemoryStore();
    return { store: fresh, dispose: async () => {}, setApiEnabled: (id, on) => fresh.setApiEnabled(id, on) };
  },
}, framework);
// @ts-expect-error basePath is a string
createHandler({ store, basePath: 1 });
// @ts-expect-error a Store has more methods than ping
const incomplete: Store = { ping: async () => {} };
void [answer, error, secret, sqlite, incomplete];
`;

let packedFiles: string[] = [];

beforeAll(async () => {
  await run([process.execPath, "scripts/build.ts", "--lib-only"], ROOT);
  const packed = JSON.parse((await run(["npm", "pack", "--ignore-scripts", "--json", "--pack-destination", scratch], ROOT)).stdout) as {
    filename: string;
    files: { path: string }[];
  }[];
  packedFiles = packed[0]!.files.map((f) => f.path);
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "leaveapi-consumer", private: true, type: "module" }));
  await run(["npm", "install", join(scratch, packed[0]!.filename), "--no-audit", "--no-fund"], app);
}, 600_000);

describe("the npm package", () => {
  test("holds the built entry points, their declarations and the sources, and no tests", () => {
    for (const name of ENTRIES) {
      expect(packedFiles).toContain(`dist/lib/entry/${name}.js`);
      expect(packedFiles).toContain(`dist/lib/entry/${name}.d.ts`);
      expect(packedFiles).toContain(`entry/${name}.ts`);
    }
    for (const file of ["package.json", "README.md", "scripts/cli.ts", "lib/store.ts", "testing/store-contract.ts"]) expect(packedFiles).toContain(file);
    expect(packedFiles.filter((f) => /^(test|bench|node_modules|examples)\//.test(f) || f === "dist/leaveapi")).toEqual([]);
  });

  test("from plain Node: Postgres store, node:http under /hr-api, token and employees round trip", async () => {
    writeFileSync(join(app, "main.js"), MAIN_JS);
    const { stdout } = await run(["node", "main.js"], app, { DATABASE_URL: await newDatabase() });
    const result = JSON.parse(stdout) as {
      node: string;
      employees: { status: number; body: { data: Record<string, unknown>[]; has_more: boolean } };
    } & Record<string, unknown>;
    expect(Number(/^v(\d+)\./.exec(result.node)?.[1])).toBeGreaterThanOrEqual(20);
    expect(result).toMatchObject({
      token: { status: 200, pragma: "no-cache", token_type: "Bearer", scope: "employees:read", expires_in: 3600 },
      head: { status: 200, contentType: "application/json", body: "" },
      outside: 404,
      tokenEndpointUnderPrefix: true,
      storeDown: 503,
    });
    expect(result.employees.status).toBe(200);
    expect(result.employees.body.has_more).toBe(false);
    expect(result.employees.body.data).toHaveLength(1);
    expect(result.employees.body.data[0]).toMatchObject({ id: EMPLOYEE_ID, first_name: "Grace", last_name: "Hopper", holiday_calendar: "US", start_date: "1943-12-01" });
  }, 60_000);

  test("its declarations type-check a TypeScript consumer (nodenext resolution, library checks on)", async () => {
    writeFileSync(join(app, "check.ts"), CHECK_TS);
    const tsconfig = {
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "ES2022",
        lib: ["ES2023", "DOM"],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
        typeRoots: [join(ROOT, "node_modules/@types")],
      },
      files: ["check.ts"],
    };
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(tsconfig));
    await run([join(ROOT, "node_modules/.bin/tsc"), "-p", "tsconfig.json"], app);
  }, 120_000);

  test("ships the Bun command line, runnable from the install", async () => {
    const { stdout } = await run([process.execPath, "node_modules/leaveapi/scripts/cli.ts", "--version"], app);
    expect(stdout.trim()).toBe(packageJson.version);
  }, 60_000);
});
