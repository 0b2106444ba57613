/**
 * Real OAuth client libraries (oauth4webapi and openid-client) against a running
 * `leaveapi serve`: they percent-encode `-` and `_` in Basic credentials, insist on exact
 * media types and refuse redirects, so this is where interoperability shows.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import * as openid from "openid-client";
import { runJson, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";

let server: RunningServer;
let scratch: ReturnType<typeof scratchDir>;
let clientId: string;
let clientSecret: string;

beforeAll(async () => {
  scratch = scratchDir();
  const db = ["--db", join(scratch.dir, "e2e.sqlite")];
  const org = await runJson<{ id: string }>([...db, "org", "create", "--name", "E2E Ltd"]);
  await runJson([...db, "org", "enable-api", org.id]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org.id]);
  ({ client_id: clientId, client_secret: clientSecret } = creds);
  await runJson([...db, "import", "--org", org.id, "--kind", "employees", join(import.meta.dir, "../examples/import/employees.jsonl")]);
  server = await startServer(db);
}, 30_000);

afterAll(async () => {
  expect(await server.stop()).toBe(0);
  scratch.dispose();
});

async function readEmployees(accessToken: string) {
  const res = await oauth.protectedResourceRequest(accessToken, "GET", new URL(`${server.baseUrl}/v1/employees?limit=2`), undefined, undefined, {
    [oauth.allowInsecureRequests]: true,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { has_more: boolean; data: { id: string }[] };
}

for (const method of ["basic", "post"] as const) {
  test(`oauth4webapi obtains a token with client_secret_${method} and reads a page`, async () => {
    const as: oauth.AuthorizationServer = { issuer: server.baseUrl, token_endpoint: `${server.baseUrl}/v1/oauth/token` };
    const auth = method === "basic" ? oauth.ClientSecretBasic(clientSecret) : oauth.ClientSecretPost(clientSecret);
    const response = await oauth.clientCredentialsGrantRequest(as, { client_id: clientId }, auth, new URLSearchParams({ scope: "employees:read" }), {
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: clientId }, response);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe("employees:read");
    const page = await readEmployees(tokens.access_token);
    expect(page.data.length).toBeGreaterThan(0);
  });

  test(`openid-client discovers the server and obtains a token with client_secret_${method}`, async () => {
    const auth = method === "basic" ? openid.ClientSecretBasic(clientSecret) : openid.ClientSecretPost(clientSecret);
    const config = await openid.discovery(new URL(server.baseUrl), clientId, undefined, auth, {
      algorithm: "oauth2",
      execute: [openid.allowInsecureRequests],
    });
    const tokens = await openid.clientCredentialsGrant(config);
    expect(tokens.scope).toBe("employees:read holidays:read leave:read");
    const res = await openid.fetchProtectedResource(config, tokens.access_token, new URL(`${server.baseUrl}/v1/holidays?from=2026-12-01&to=2026-12-31`), "GET");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { date: string; type: string }[] };
    expect(body.data.some((h) => h.date === "2026-12-25" && h.type === "public")).toBe(true);
  });
}

test("the server's logs hold no secret, token or query string", async () => {
  const output = server.output();
  expect(output).not.toContain(clientSecret);
  expect(output).not.toMatch(/svct_[A-Za-z0-9_-]{43}/);
  expect(output).not.toContain("from=2026-12-01");
});
