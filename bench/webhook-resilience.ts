#!/usr/bin/env bun
/**
 * Bad receivers do not cost the API its reads or its memory (issue 39; docs/scaling.md,
 * "Change notifications"): a server on SQLite answers `GET /v1/employees` to several
 * connections for `--seconds` three times: with no endpoint and no import (the baseline),
 * with an import every 2 s, then with the same imports and four endpoints that
 * misbehave: one answers a
 * redirect, one waits 30 s before answering, one answers an endless body, one is an
 * unreachable address (TEST-NET-1). The retry base is 0.1 s so that they are tried often.
 * Prints each phase's requests a second, p50 and p99 latency, and the server's RSS.
 *
 *   bun bench/webhook-resilience.ts [--seconds 30] [--connections 8]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fetchToken } from "./harness/crawl.ts";
import { CLI, rssKib, runCli, startServer } from "./harness/processes.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "30" }, connections: { type: "string", default: "8" } } });
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);

/** A process's CPU time so far, in seconds (user + system, from /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const work = mkdtempSync(join(tmpdir(), "leaveapi-webhook-resilience-"));
const attempts = { redirect: 0, slow: 0, huge: 0 };
const chunk = new Uint8Array(1 << 20).fill(120);
const receivers = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 60,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/redirect") {
      attempts.redirect++;
      return new Response(null, { status: 302, headers: { location: "/huge" } });
    }
    if (path === "/slow") {
      attempts.slow++;
      await Bun.sleep(30_000);
      return new Response("late");
    }
    attempts.huge++;
    let sent = 0;
    // An endless answer (stopped after 1 GiB): the sender must read 4 KiB of it and hang up.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ > 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    return new Response(body, { status: 500 });
  },
});

try {
  const db = ["--db", join(work, "hooks.sqlite")];
  const json = async (args: string[]) => JSON.parse((await runCli([...args, "--json"])).stdout) as Record<string, string>;
  const { id: org } = await json([...db, "org", "create", "--name", "Hooks Ltd"]);
  await runCli([...db, "org", "enable-api", org!]);
  const reader = await json([...db, "credentials", "create", "--org", org!]);
  const rows = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ external_id: `E${i}`, first_name: "Ann", last_name: `${tag} ${i}`, status: "active", department: "Ops" }),
    ).join("\n");
  const file = join(work, "employees.jsonl");
  writeFileSync(file, rows(2000, "Start"));
  await runCli([...db, "import", "--org", org!, "--kind", "employees", file]);

  const server = await startServer([...CLI, ...db, "serve", "--port", "0", "--log-level", "warn", "--read-rate-limit", "0", "--webhook-retry", "0.1"]);
  try {
    const token = await fetchToken(server.url, { id: reader.client_id!, secret: reader.client_secret! });

    const phase = async (name: string, during?: () => Promise<void>) => {
      const latencies: number[] = [];
      let failed = 0;
      let peak = rssKib(server.pid);
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssKib(server.pid));
      }, 500);
      const deadline = Date.now() + SECONDS * 1000;
      const cpu = { server: cpuSeconds(server.pid), here: cpuSeconds(process.pid) };
      const side = during?.();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (Date.now() < deadline) {
            const started = performance.now();
            const answer = await fetch(`${server.url}/v1/employees?limit=100`, { headers: { Authorization: `Bearer ${token}` } });
            await answer.arrayBuffer();
            latencies.push(performance.now() - started);
            if (answer.status !== 200) failed++;
          }
        }),
      );
      await side;
      clearInterval(sampler);
      const used = { server: cpuSeconds(server.pid) - cpu.server, here: cpuSeconds(process.pid) - cpu.here };
      latencies.sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
      const mb = (kib: number) => Math.round((kib * 1024) / 1e6);
      console.log(
        `${name}: ${Math.round(latencies.length / SECONDS)} requests/s (${failed} not 200), p50 ${at(0.5)} ms, p99 ${at(0.99)} ms; server RSS peak ${mb(peak)} MB, at the end ${mb(rssKib(server.pid))} MB; CPU: server ${used.server.toFixed(1)} s (${Math.round(latencies.length / used.server)} requests per CPU second), this process ${used.here.toFixed(1)} s`,
      );
    };

    let imports = 0;
    /** An import of every employee, changed, every 2 s until the phase ends. */
    const importing = async () => {
      const deadline = Date.now() + SECONDS * 1000;
      while (Date.now() < deadline - 2000) {
        writeFileSync(file, rows(2000, `Import ${++imports}`));
        await runCli([...db, "import", "--org", org!, "--kind", "employees", file]);
        await Bun.sleep(2000);
      }
    };
    await phase("no endpoints, no imports");
    await phase("no endpoints, an import every 2 s", importing);
    const base = `http://127.0.0.1:${receivers.port}`;
    for (const url of [`${base}/redirect`, `${base}/slow`, `${base}/huge`, "http://192.0.2.1/unreachable"]) {
      await runCli([...db, "webhooks", "add", "--client", reader.client_id!, "--url", url]);
    }
    await phase("four bad endpoints, an import every 2 s", importing);
    const listed = JSON.parse((await runCli([...db, "webhooks", "list", "--json"])).stdout) as { url: string; last_error: string | null }[];
    console.log(`${imports} imports; attempts seen: redirect ${attempts.redirect}, slow ${attempts.slow}, huge ${attempts.huge}`);
    for (const e of listed) console.log(`  ${e.url}: ${e.last_error}`);
  } finally {
    await server.stop();
  }
} finally {
  await receivers.stop(true);
  rmSync(work, { recursive: true, force: true });
}
