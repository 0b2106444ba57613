/**
 * GET /docs and its script, through the handler: public, the standard headers plus a
 * Content-Security-Policy of this origin only, the renderer served from this server with
 * the exact bytes of the installed @scalar/api-reference bundle, and URLs relative to the
 * page so a path prefix keeps them working. test/docs-page.e2e.test.ts renders it in Chromium.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DOCS_CONTENT_SECURITY_POLICY } from "../server/docs-page.ts";
import { createWorld } from "./support.ts";

const BUNDLE = join(import.meta.dir, "../node_modules/@scalar/api-reference/dist/browser/standalone.js");

describe("GET /docs", () => {
  test("an HTML page, without authentication, with the standard headers and a strict CSP", async () => {
    const world = await createWorld();
    const res = await world.call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("content-security-policy")).toBe(DOCS_CONTENT_SECURITY_POLICY);
    const directives = new Map(DOCS_CONTENT_SECURITY_POLICY.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("script-src")).toEqual(["'self'"]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    for (const sources of directives.values()) for (const source of sources) expect(["'none'", "'self'", "'unsafe-inline'", "data:"]).toContain(source);

    const html = await res.text();
    // Relative URLs: /docs → /v1/openapi.json and /docs/api-reference.js, under any prefix.
    expect(html).toContain('<script src="docs/api-reference.js"></script>');
    const configuration = /data-configuration="([^"]*)"/.exec(html)![1]!.replaceAll("&quot;", '"').replaceAll("&amp;", "&");
    expect(JSON.parse(configuration)).toMatchObject({ url: "v1/openapi.json", withDefaultFonts: false, telemetry: false });
    // No inline script: the configuration is an attribute and the one other script is external.
    expect(html).toContain('<script id="api-reference" data-configuration=');
    expect(html.match(/<script[^>]*>[^<]+<\/script>/g)).toBeNull();
    expect(html).not.toMatch(/https?:\/\//);
  });

  test("the renderer's script is the installed @scalar/api-reference standalone bundle, byte for byte", async () => {
    const world = await createWorld();
    const res = await world.call("/docs/api-reference.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toBe(readFileSync(BUNDLE, "utf8"));
  });

  test("HEAD answers without a body; other methods get 405; a trailing slash is an unknown path", async () => {
    const world = await createWorld();
    for (const path of ["/docs", "/docs/api-reference.js"]) {
      const head = await world.call(path, { method: "HEAD" });
      expect({ path, status: head.status, body: await head.text() }).toEqual({ path, status: 200, body: "" });
      const post = await world.call(path, { method: "POST" });
      expect({ path, status: post.status, allow: post.headers.get("allow") }).toEqual({ path, status: 405, allow: "GET, HEAD" });
    }
    expect((await world.call("/docs/")).status).toBe(404);
  });

  test("served under a base path too", async () => {
    const world = await createWorld({ basePath: "/hr-api" });
    expect((await world.call("/hr-api/docs")).status).toBe(200);
    expect((await world.call("/hr-api/docs/api-reference.js")).status).toBe(200);
    expect((await world.call("/docs")).status).toBe(404);
  });
});
