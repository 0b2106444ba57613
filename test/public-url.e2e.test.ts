/**
 * `serve --public-url` (env LEAVEAPI_PUBLIC_URL) pins the URL that the discovery and
 * OpenAPI documents print, whatever Host header a client sends; without it they follow the
 * request's origin.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer } from "./cli-harness.ts";
import { provisionDatabase, type Provisioned } from "./serve-fixture.ts";

let p: Provisioned;
beforeAll(async () => {
  p = await provisionDatabase("public-url.sqlite");
}, 30_000);
afterAll(() => p.dispose());

async function documents(baseUrl: string, host: string): Promise<{ tokenEndpoint: string; server: string }> {
  const headers = { Host: host };
  const metadata = (await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`, { headers })).json()) as { token_endpoint: string };
  const openapi = (await (await fetch(`${baseUrl}/v1/openapi.json`, { headers })).json()) as { servers: { url: string }[] };
  return { tokenEndpoint: metadata.token_endpoint, server: openapi.servers[0]!.url };
}

/** The documents a server started with `how` prints for a request with this Host. */
async function documentsFrom(how: Parameters<typeof startServer>[1], host: string) {
  const server = await startServer(p.db, how);
  try {
    return await documents(server.baseUrl, host);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

test("--public-url and LEAVEAPI_PUBLIC_URL pin the documents against a forged Host", async () => {
  for (const how of [{ serveArgs: ["--public-url", "https://leave.example.com/"] }, { env: { LEAVEAPI_PUBLIC_URL: "https://leave.example.com" } }]) {
    expect(await documentsFrom(how, "attacker.example")).toEqual({
      tokenEndpoint: "https://leave.example.com/v1/oauth/token",
      server: "https://leave.example.com",
    });
  }
}, 30_000);

test("without it, the documents follow the request's origin", async () => {
  expect(await documentsFrom({}, "leave.internal:8080")).toEqual({
    tokenEndpoint: "http://leave.internal:8080/v1/oauth/token",
    server: "http://leave.internal:8080",
  });
}, 30_000);
