/**
 * The embedding recipes (docs/embedding.md, "Mounting the handler"), each run as a reader
 * would run it: `node examples/*.mjs` on Postgres, `bun examples/bun-embed.ts` and
 * `deno run examples/deno-serve.ts` on SQLite. The Node and Bun recipes import the package
 * by name, so the exports map and dist/lib are exercised too. For each: the host app's own
 * route answers, a token and a page of employees come from under /hr-api, oauth4webapi
 * discovers the token endpoint there, and a malformed Host gets a 400 or 404, never a 500.
 * examples/deno-serve.ts serves the API alone, so it has no route of the host's;
 * adapters/deno/serve.e2e.test.ts runs it on every store.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import { openPostgresStore } from "../adapters/postgres.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { mintClient } from "../lib/credentials.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { scratchDir } from "./cli-harness.ts";
import { libraryBuilt } from "./library-build.ts";
import { scratchDatabases } from "./pg-scratch.ts";
import { exchange } from "./socket-fuzz.ts";
import { employee } from "./support.ts";

const ROOT = join(import.meta.dir, "..");
const HOME_PAGE = "The host app's home page\n";

interface Recipe {
  url: string;
  port: number;
  stop: () => Promise<number>;
}

const running = new Set<Recipe>();
const stopAll = () => Promise.all([...running].map((recipe) => recipe.stop())).then(() => {});
const newDatabase = scratchDatabases("recipes", stopAll);
const scratch = scratchDir();
afterAll(() => scratch.dispose());

beforeAll(() => libraryBuilt(), 120_000);

interface Seeded {
  store: SqlAdminStore | Awaited<ReturnType<typeof openSqliteStore>>;
  organisationId: string;
  employeeId: string;
}

/** An organisation with API access and one employee, written before the recipe opens the database. */
async function seedOrganisation(store: Seeded["store"]): Promise<Omit<Seeded, "store">> {
  await store.migrate();
  const organisationId = crypto.randomUUID();
  await store.createOrganisation({ id: organisationId, name: "Host Ltd", api_enabled: true, created_at: Date.now() });
  const ada = employee();
  await store.runImport((w) => w.upsertEmployees(organisationId, [ada], Date.now()));
  return { organisationId, employeeId: ada.id };
}

/** Credentials of their own for one recipe run, so no run meets another's token rate limit. */
async function newCredentials(store: Seeded["store"], organisationId: string): Promise<{ clientId: string; secret: string }> {
  const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "recipe test", Date.now());
  await store.createClient(client);
  return { clientId: client.client_id, secret };
}

/** Starts a recipe on port 0 and resolves once it prints where it listens; a recipe that exits first fails with its output. */
async function startRecipe(argv: string[], env: Record<string, string>): Promise<Recipe> {
  const proc = Bun.spawn(argv, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(proc.stderr).text();
  const decoder = new TextDecoder();
  let printed = "";
  for await (const chunk of proc.stdout) {
    printed += decoder.decode(chunk, { stream: true });
    const url = /listening on (http:\/\/\S+?)\/?\n/.exec(printed)?.[1];
    if (url === undefined) continue;
    const recipe: Recipe = {
      url,
      port: Number(new URL(url).port),
      stop: async () => {
        running.delete(recipe);
        proc.kill("SIGTERM");
        return proc.exited;
      },
    };
    running.add(recipe);
    return recipe;
  }
  throw new Error(`${argv.join(" ")} exited ${await proc.exited} before listening:\n${printed}${await stderr}`);
}

/** The status of a request sent on a raw socket with this Host, which fetch would refuse to send. */
async function statusWithHost(port: number, path: string, host: string): Promise<number> {
  const request = `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
  const answer = new TextDecoder("latin1").decode(await exchange(port, new TextEncoder().encode(request), 10_000));
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? "0");
}

/**
 * Everything a recipe must do, against a recipe already listening with the seed and these
 * credentials; `homePage: false` for a server of the API alone, where `/` is the API's 404.
 */
async function expectRecipeServes(recipe: Recipe, credentials: { clientId: string; secret: string }, employeeId: string, { homePage = true } = {}) {
  const home = await fetch(`${recipe.url}/`);
  if (homePage) expect({ status: home.status, body: await home.text() }).toEqual({ status: 200, body: HOME_PAGE });
  else expect({ status: home.status, body: await home.json() }).toMatchObject({ status: 404, body: { error: "not_found" } });

  const tokenRes = await fetch(`${recipe.url}/hr-api/v1/oauth/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${credentials.clientId}:${credentials.secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&scope=employees%3Aread",
  });
  const token = (await tokenRes.json()) as { access_token: string; scope: string };
  expect({ status: tokenRes.status, scope: token.scope }).toEqual({ status: 200, scope: "employees:read" });
  const page = await fetch(`${recipe.url}/hr-api/v1/employees`, { headers: { Authorization: `Bearer ${token.access_token}` } });
  expect(page.status).toBe(200);
  expect(((await page.json()) as { data: { id: string }[] }).data.map((e) => e.id)).toEqual([employeeId]);

  // RFC 8414 §3.1: oauth4webapi asks /.well-known/oauth-authorization-server/hr-api, outside the prefix.
  const issuer = new URL(`${recipe.url}/hr-api`);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const discovery = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure });
  expect(new URL(discovery.url).pathname).toBe("/.well-known/oauth-authorization-server/hr-api");
  const metadata = await oauth.processDiscoveryResponse(issuer, discovery);
  expect(metadata.token_endpoint).toBe(`${recipe.url}/hr-api/v1/oauth/token`);

  // A Host that makes no URL: the API's 400 under the prefix, the host's own answer elsewhere, never a 500.
  for (const host of ["a b", "evil.test/x", "[::1"]) {
    expect({ host, status: await statusWithHost(recipe.port, "/hr-api/v1/employees", host) }).toEqual({ host, status: 400 });
    expect([400, 404]).toContain(await statusWithHost(recipe.port, "/nowhere", host));
  }
}

describe("the Node recipes, on Postgres, with node", () => {
  let seeded: Seeded & { databaseUrl: string };
  beforeAll(async () => {
    const databaseUrl = await newDatabase();
    const store = openPostgresStore({ connectionString: databaseUrl });
    seeded = { store, databaseUrl, ...(await seedOrganisation(store)) };
  }, 30_000);
  afterAll(() => seeded.store.close());

  /** Runs `node examples/<file>` on the seeded database, checks it, and stops it. */
  async function runNodeRecipe(
    file: string,
    env: Record<string, string> = {},
    more?: (recipe: Recipe, credentials: { clientId: string; secret: string }) => Promise<void>,
  ) {
    const credentials = await newCredentials(seeded.store, seeded.organisationId);
    const recipe = await startRecipe(["node", `examples/${file}`, "0"], { DATABASE_URL: seeded.databaseUrl, ...env });
    try {
      await expectRecipeServes(recipe, credentials, seeded.employeeId);
      await more?.(recipe, credentials);
    } finally {
      expect(await recipe.stop()).toBe(0);
    }
  }

  test("node:http", () => runNodeRecipe("node-http.mjs"), 30_000);

  test("Express 5, mounted under /hr-api, with its body parsers after the mount", () => runNodeRecipe("express.mjs"), 30_000);

  test(
    "Express 5 with express.json(), urlencoded(), text() and raw() before the mount: the token endpoint still gets its form",
    () =>
      runNodeRecipe("express.mjs", { BODY_PARSERS_FIRST: "1" }, async (recipe, credentials) => {
        // Credentials in the form body: the token endpoint sees every field express.urlencoded() parsed.
        const form = new URLSearchParams({
          grant_type: "client_credentials",
          client_id: credentials.clientId,
          client_secret: credentials.secret,
          scope: "leave:read employees:read",
        });
        const tokenRes = await fetch(`${recipe.url}/hr-api/v1/oauth/token`, { method: "POST", body: form });
        expect({ status: tokenRes.status, scope: ((await tokenRes.json()) as { scope: string }).scope }).toEqual({
          status: 200,
          scope: "employees:read leave:read",
        });
      }),
    30_000,
  );

  test("Hono on @hono/node-server", () => runNodeRecipe("hono-node.mjs"), 30_000);

  test("Fastify 5", () => runNodeRecipe("fastify.mjs"), 30_000);
});

test("Bun.serve, on SQLite", async () => {
  const filename = join(scratch.dir, "embed.sqlite");
  const store = openSqliteStore({ filename });
  const { organisationId, employeeId } = await seedOrganisation(store);
  const credentials = await newCredentials(store, organisationId);
  await store.close();
  const recipe = await startRecipe([process.execPath, "examples/bun-embed.ts", filename, "0"], {});
  try {
    await expectRecipeServes(recipe, credentials, employeeId);
    // Outside the prefix the host app answers, not the API.
    const outside = await fetch(`${recipe.url}/v1/employees`);
    expect({ status: outside.status, body: await outside.text() }).toEqual({ status: 404, body: "Not found\n" });
  } finally {
    await recipe.stop();
  }
}, 30_000);

test("Deno.serve, on SQLite through node:sqlite, the API alone under --base-path /hr-api", async () => {
  const dir = join(scratch.dir, "deno");
  mkdirSync(dir);
  const filename = join(dir, "leaveapi.sqlite");
  const store = openSqliteStore({ filename });
  const { organisationId, employeeId } = await seedOrganisation(store);
  const credentials = await newCredentials(store, organisationId);
  await store.close();
  const deno = [join(ROOT, "node_modules/.bin/deno"), "run", "--allow-net=127.0.0.1", `--allow-read=${dir}`, `--allow-write=${dir}`];
  const recipe = await startRecipe([...deno, "examples/deno-serve.ts", "--sqlite", filename, "--base-path", "/hr-api", "--port", "0"], {
    // Offline machines: never look for a newer Deno, never stop to ask for a permission.
    DENO_NO_UPDATE_CHECK: "1",
    DENO_NO_PROMPT: "1",
  });
  try {
    await expectRecipeServes(recipe, credentials, employeeId, { homePage: false });
  } finally {
    expect(await recipe.stop()).toBe(0);
  }
}, 60_000);

describe("the docs quote the recipes as they are", () => {
  const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

  test("the README's Embedding section quotes examples/bun-embed.ts whole", () => {
    const readme = read("README.md");
    expect(readme).toContain("## Embedding");
    // A boolean, so that a mismatch does not print the whole README.
    expect({ quotedWhole: readme.includes(`\`\`\`ts\n${read("examples/bun-embed.ts")}\`\`\``) }).toEqual({ quotedWhole: true });
  });

  test("every code block after a link to an example in docs/embedding.md is that file's lines, `// …` marking what is left out", () => {
    const doc = read("docs/embedding.md");
    // A link to examples/<file>, then the next fenced block, unless another such link, another block or a heading comes first.
    const quotes = [...doc.matchAll(/\(\.\.\/(examples\/[\w-]+\.(?:ts|mjs))\)(?:(?!\(\.\.\/examples\/|```|\n#)[\s\S])*```(?:ts|js)\n([\s\S]*?)```/g)];
    const quoted = new Set(quotes.map(([, file]) => file));
    expect([...quoted].sort()).toEqual([
      "examples/bun-embed.ts",
      "examples/deno-serve.ts",
      "examples/express.mjs",
      "examples/fastify.mjs",
      "examples/hono-node.mjs",
      "examples/node-http.mjs",
    ]);
    for (const [, file, block] of quotes) {
      const source = read(file!);
      let from = 0;
      for (const piece of block!.split(/^\s*\/\/ …\n/m)) {
        const at = source.indexOf(piece, from);
        expect({ file, piece, found: at !== -1 }).toEqual({ file, piece, found: true });
        from = at + piece.length;
      }
    }
  });
});
