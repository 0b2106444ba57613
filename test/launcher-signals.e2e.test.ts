/**
 * Stopping a server started from a clone (issue 38): SIGINT or SIGTERM sent to the PID of
 * `npx leaveapi serve` or `npm start` (not to its process group, as a terminal's Ctrl-C
 * does) stops the server cleanly. npm passes the signal to the shell it runs the command
 * in; the repository's .npmrc makes that shell bash, which replaces itself with the
 * command (dash would wait and keep the signal); bin/leaveapi.mjs passes it on to Bun.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { scratchDir, startServer } from "./cli-harness.ts";

const ROOT = join(import.meta.dir, "..");
const scratch = scratchDir();
afterAll(() => scratch.dispose());

describe("a signal to the PID npm started", () => {
  test.each(["SIGINT", "SIGTERM"] as const)(
    "%s to `npx leaveapi serve` stops the server cleanly: it drains, the launcher and npm exit 0",
    async (signal) => {
      const server = await startServer(["--db", join(scratch.dir, `npx-${signal}.sqlite`)], { command: ["npx", "--no-install", "leaveapi"] });
      expect((await fetch(`${server.baseUrl}/livez`)).status).toBe(200);
      expect(await server.stop(signal)).toBe(0);
      expect(server.output()).toContain(`${signal}: finishing in-flight requests`);
      await expect(fetch(`${server.baseUrl}/livez`)).rejects.toThrow();
    },
    60_000,
  );

  test("SIGINT to `npm start` stops the demo server cleanly", async () => {
    // npm start is `serve --demo` on ./leaveapi.sqlite: here on a scratch database, any free port.
    const proc = Bun.spawn(["npm", "start", "--silent", "--", "--port", "0"], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: join(scratch.dir, "demo.sqlite") },
    });
    let text = "";
    const decoder = new TextDecoder();
    const collect = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
    };
    const done = Promise.all([collect(proc.stdout), collect(proc.stderr)]);
    const deadline = Date.now() + 30_000;
    let baseUrl: string | undefined;
    while (!(baseUrl = /leaveapi serving (http:\/\/\S+)/.exec(text)?.[1])) {
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill("SIGKILL");
        throw new Error(`npm start did not start serving: ${text}`);
      }
      await Bun.sleep(20);
    }
    expect((await fetch(`${baseUrl}/livez`)).status).toBe(200);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    await done;
    expect(text).toContain("SIGINT: finishing in-flight requests");
  }, 60_000);
});
