/**
 * Real clients discover the API mounted under `/hr-api` over HTTP: oauth4webapi (and
 * openid-client on top of it) derive the metadata address from the issuer
 * `http://host/hr-api` as RFC 8414 §3.1 says, `/.well-known/oauth-authorization-server/hr-api`,
 * then get a token at the token endpoint the metadata names and read a page with it
 * (docs/embedding.md, "Mounting under a path prefix").
 */
import { expect, test } from "bun:test";
import * as oauth from "oauth4webapi";
import * as openid from "openid-client";
import { createHandler } from "../server/handler.ts";
import { createClient, createOrganisation, createWorld, employee, seed } from "./support.ts";

const PREFIX = "/hr-api";

/** The handler under the prefix on a real port, over the store of this run's kind, with one client. */
async function servedUnderPrefix() {
  const world = await createWorld();
  const organisationId = await createOrganisation(world);
  const client = await createClient(world, organisationId);
  await seed(world, organisationId, { employees: [employee()] });
  const handler = createHandler({ store: world.store, now: world.clock.now, basePath: PREFIX });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req, srv) => handler(req, { remoteAddress: srv.requestIP(req)?.address }) });
  return { client, server, issuer: new URL(`http://127.0.0.1:${server.port}${PREFIX}`) };
}

test("oauth4webapi discovers the issuer http://host/hr-api and gets a token at the discovered endpoint", async () => {
  const { client, server, issuer } = await servedUnderPrefix();
  try {
    const insecure = { [oauth.allowInsecureRequests]: true };
    const discovery = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure });
    expect(new URL(discovery.url).pathname).toBe(`/.well-known/oauth-authorization-server${PREFIX}`);
    const as = await oauth.processDiscoveryResponse(issuer, discovery);
    expect(as.issuer).toBe(issuer.href);
    expect(as.token_endpoint).toBe(`${issuer.href}/v1/oauth/token`);

    const oauthClient: oauth.Client = { client_id: client.clientId };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      oauthClient,
      oauth.ClientSecretBasic(client.clientSecret),
      new URLSearchParams({ scope: "employees:read" }),
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, oauthClient, response);
    expect(tokens.scope).toBe("employees:read");

    const page = await oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${issuer.href}/v1/employees`), undefined, undefined, insecure);
    expect(page.status).toBe(200);
    expect(((await page.json()) as { data: unknown[] }).data).toHaveLength(1);
  } finally {
    await server.stop(true);
  }
});

test("openid-client's discovery finds it the same way", async () => {
  const { client, server, issuer } = await servedUnderPrefix();
  try {
    const config = await openid.discovery(issuer, client.clientId, undefined, openid.ClientSecretPost(client.clientSecret), {
      algorithm: "oauth2",
      execute: [openid.allowInsecureRequests],
    });
    expect(config.serverMetadata().token_endpoint).toBe(`${issuer.href}/v1/oauth/token`);
    const tokens = await openid.clientCredentialsGrant(config);
    expect(tokens.scope).toBe("employees:read holidays:read leave:read");
  } finally {
    await server.stop(true);
  }
});
