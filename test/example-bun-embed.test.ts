/**
 * examples/bun-embed.ts, the file the README's "Embedding" section quotes, run as a reader
 * would run it: the host app's own route and the API under /hr-api answer from one
 * server, and the API's token and employees round trip works there. It imports
 * `leaveapi` and `leaveapi/sqlite` by package name, so the exports map is exercised too.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStore } from "../adapters/sqlite.ts";
import { mintClient } from "../lib/credentials.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { scratchDir } from "./cli-harness.ts";
import { employee } from "./support.ts";

const ROOT = join(import.meta.dir, "..");
const scratch = scratchDir();
afterAll(() => scratch.dispose());

/** An organisation with one employee and a client, written to a new SQLite file before the example opens it. */
async function prepareDatabase(filename: string) {
  const store = openSqliteStore({ filename });
  await store.migrate();
  const organisationId = crypto.randomUUID();
  await store.createOrganisation({ id: organisationId, name: "Host Ltd", api_enabled: true, created_at: Date.now() });
  const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "embed test", Date.now());
  await store.createClient(client);
  const ada = employee();
  await store.runImport((w) => w.upsertEmployees(organisationId, [ada], Date.now()));
  await store.close();
  return { clientId: client.client_id, secret, employeeId: ada.id };
}

/** Starts the example on port 0 and resolves with its URL once it prints it. */
async function startExample(filename: string) {
  const proc = Bun.spawn([process.execPath, "examples/bun-embed.ts", filename, "0"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const decoder = new TextDecoder();
  let printed = "";
  for await (const chunk of proc.stdout) {
    printed += decoder.decode(chunk, { stream: true });
    const url = /listening on (http:\/\/\S+?)\/?\n/.exec(printed)?.[1];
    if (url) return { url, stop: async () => void (proc.kill(), await proc.exited) };
  }
  throw new Error(`examples/bun-embed.ts exited ${await proc.exited} before listening: ${printed}${await new Response(proc.stderr).text()}`);
}

test("the Bun embedding example serves the host's routes and the API under /hr-api", async () => {
  const filename = join(scratch.dir, "embed.sqlite");
  const { clientId, secret, employeeId } = await prepareDatabase(filename);
  const app = await startExample(filename);
  try {
    const home = await fetch(`${app.url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe("The host app's home page\n");
    // Outside the prefix the host app answers, not the API.
    const outside = await fetch(`${app.url}/v1/employees`);
    expect(outside.status).toBe(404);
    expect(await outside.text()).toBe("Not found\n");

    const tokenRes = await fetch(`${app.url}/hr-api/v1/oauth/token`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    expect(tokenRes.status).toBe(200);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const employees = await fetch(`${app.url}/hr-api/v1/employees`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(employees.status).toBe(200);
    expect(((await employees.json()) as { data: { id: string }[] }).data.map((e) => e.id)).toEqual([employeeId]);

    const metadata = (await (await fetch(`${app.url}/hr-api/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
    expect(metadata.token_endpoint).toBe(`${app.url}/hr-api/v1/oauth/token`);
  } finally {
    await app.stop();
  }
}, 30_000);

test("the README's Embedding section quotes the example as it is", () => {
  const example = readFileSync(join(ROOT, "examples/bun-embed.ts"), "utf8");
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(readme).toContain("## Embedding");
  expect(readme).toContain("```ts\n" + example + "```");
});
