/**
 * The committed openapi.json passes Redocly's linter with redocly.yaml: the recommended
 * rules, every warning an error. Offline: Redocly's telemetry and update check are its only
 * network use, and both are switched off here.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./cli-harness.ts";

const ROOT = join(import.meta.dir, "..");
const REDOCLY = join(ROOT, "node_modules/.bin/redocly");

async function lint(file: string): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn([REDOCLY, "lint", file, "--config", join(ROOT, "redocly.yaml"), "--format", "stylish"], {
    cwd: ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, output: out + err };
}

describe("redocly lint", () => {
  test("openapi.json has no errors and no warnings", async () => {
    const { code, output } = await lint("openapi.json");
    expect({ code, output: code === 0 ? "" : output }).toEqual({ code: 0, output: "" });
  }, 60_000);

  test("a document that breaks a rule fails, so the check above can fail", async () => {
    const scratch = scratchDir();
    try {
      const doc = JSON.parse(readFileSync(join(ROOT, "openapi.json"), "utf8")) as { paths: { [path: string]: { get?: { operationId?: string } } } };
      delete doc.paths["/healthz"]!.get!.operationId;
      const broken = join(scratch.dir, "openapi.json");
      writeFileSync(broken, JSON.stringify(doc));
      const { code, output } = await lint(broken);
      expect(code).not.toBe(0);
      expect(output).toContain("operation-operationId");
    } finally {
      scratch.dispose();
    }
  }, 60_000);
});
