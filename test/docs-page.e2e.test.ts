/**
 * The reference page as a person sees it: `leaveapi serve` (or the binary, LEAVEAPI_BIN),
 * /docs opened in headless Chromium (Debian's `chromium`, driven by playwright-core). Every
 * endpoint is listed with its method, every request the page makes goes to the server on
 * 127.0.0.1, and the page breaks none of its own Content-Security-Policy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { scratchDir, startServer, type RunningServer } from "./cli-harness.ts";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ENDPOINTS = [
  ["POST", "/v1/oauth/token"],
  ["GET", "/v1/employees"],
  ["GET", "/v1/employees/{id}"],
  ["GET", "/v1/leave-requests"],
  ["GET", "/v1/holidays"],
] as const;

let server: RunningServer;
let browser: Browser;
const scratch = scratchDir();

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  server = await startServer(["--db", join(scratch.dir, "docs.sqlite")]);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  scratch.dispose();
});

describe("/docs in Chromium", () => {
  test("lists every endpoint with its method, and no request leaves 127.0.0.1", async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    await page.addInitScript(() => {
      const seen: string[] = [];
      Object.assign(window, { cspViolations: seen });
      document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });

    const response = await page.goto(`${server.baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    // Runs in the page. Scalar writes an endpoint as the path in an element of its own, beside
    // the method. Returns the endpoints not (yet) listed, or when waiting whether none is missing.
    const missing = ({ endpoints, waiting }: { endpoints: readonly (readonly [string, string])[]; waiting: boolean }) => {
      const squash = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, "").toLowerCase();
      const found = new Set(
        [...document.querySelectorAll("*")]
          .filter((e) => e.children.length === 0 && (e.textContent ?? "").trim().startsWith("/"))
          .map((e) => squash(e.parentElement?.textContent)),
      );
      const absent = endpoints.filter(([method, path]) => !found.has(squash(method + path))).map(([method, path]) => `${method} ${path}`);
      return waiting ? absent.length === 0 : absent;
    };
    // A timeout here is reported by the next line, which names what is missing.
    await page.waitForFunction(missing, { endpoints: ENDPOINTS, waiting: true }, { timeout: 30_000 }).catch(() => undefined);
    expect(await page.evaluate(missing, { endpoints: ENDPOINTS, waiting: false })).toEqual([]);
    await page.waitForLoadState("load");

    const origin = new URL(server.baseUrl).origin;
    expect(new URL(server.baseUrl).hostname).toBe("127.0.0.1");
    expect(requested.filter((url) => new URL(url).origin !== origin && !url.startsWith("data:"))).toEqual([]);
    expect(requested).toContain(`${origin}/v1/openapi.json`);
    expect(requested).toContain(`${origin}/docs/api-reference.js`);
    // The one expected refusal: zod, inside Scalar, probes `new Function("")` once to see whether
    // it may compile validators, catches the refusal and validates without. Nothing else may be refused.
    const violations = await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
    expect(violations.filter((v) => v !== "script-src eval")).toEqual([]);
    await page.close();
  }, 60_000);
});
