#!/usr/bin/env bun
/**
 * The server's memory under a holiday flood (issue 24): one client with a `holidays:read`
 * token, on several connections, asks `GET /v1/holidays` for one year of one calendar at a
 * time, over every shipped calendar but the lunar ones (each year of them costs enough CPU
 * to slow the flood, not grow it) and every shipped year, in a random order,
 * so that nearly every request is a calendar-year the server has not computed. The
 * server's RSS is sampled every second; the peak and the last are printed.
 *
 *   bun bench/holiday-memory.ts [--seconds 60] [--connections 6] [--root DIR]
 *
 * `--root` runs another checkout's command line (an older commit, to compare). The
 * server runs without the per-client budget (`--read-rate-limit 0`): what is measured is
 * what a flood the budget lets through costs, whoever sends it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SHIPPED_YEARS } from "../lib/public-holidays.ts";
import { shippedCalendars } from "../lib/shipped-holidays.ts";
import { rssKib, runCli, startServer } from "./harness/processes.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "60" }, connections: { type: "string", default: "6" }, root: { type: "string" } },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const LUNAR = new Set(["CN", "HK", "KR", "TW", "VN"]);
const root = values.root ?? join(import.meta.dir, "..");
const cli = [process.execPath, join(root, "scripts/cli.ts")];

const work = mkdtempSync(join(tmpdir(), "leaveapi-holiday-memory-"));
try {
  const db = ["--db", join(work, "flood.sqlite")];
  const run = async (args: string[]) => JSON.parse((await runCli(args, {}, cli)).stdout) as Record<string, string>;
  const { id } = await run([...db, "org", "create", "--name", "Flood Ltd", "--json"]);
  await runCli([...db, "org", "enable-api", id!], {}, cli);
  const creds = await run([...db, "credentials", "create", "--org", id!, "--scopes", "holidays:read", "--json"]);
  // An older checkout may not know the flag; a budget it does not have needs none.
  const server = await startServer([...cli, ...db, "serve", "--port", "0", "--log-level", "warn", ...(values.root ? [] : ["--read-rate-limit", "0"])]).catch(
    () => startServer([...cli, ...db, "serve", "--port", "0", "--log-level", "warn"]),
  );
  try {
    const tokenAnswer = await fetch(`${server.url}/v1/oauth/token`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`${creds.client_id}:${creds.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
    const pairs: [string, number][] = [];
    for (const calendar of shippedCalendars().filter((c) => !LUNAR.has(c.slice(0, 2)))) {
      for (let year = SHIPPED_YEARS.first; year < SHIPPED_YEARS.last; year++) pairs.push([calendar, year]);
    }
    for (let i = pairs.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
    }
    const startedRss = rssKib(server.pid);
    let peak = startedRss;
    let next = 0;
    let requests = 0;
    let failed = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKib(server.pid));
    }, 1000);
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < deadline && next < pairs.length) {
          const [calendar, year] = pairs[next++]!;
          const answer = await fetch(`${server.url}/v1/holidays?from=${year}-01-01&to=${year}-12-31&calendar=${calendar}`, {
            headers: { Authorization: `Bearer ${token}` },
          });
          await answer.arrayBuffer();
          requests++;
          if (answer.status !== 200) failed++;
        }
      }),
    );
    clearInterval(sampler);
    const last = rssKib(server.pid);
    peak = Math.max(peak, last);
    const mb = (kib: number) => Math.round((kib * 1024) / 1e6);
    console.log(
      `holiday flood, ${CONNECTIONS} connections, ${SECONDS} s: ${requests} requests (${failed} not 200) over ${pairs.length} calendar-years; server RSS ${mb(startedRss)} MB at start, peak ${mb(peak)} MB, at the end ${mb(last)} MB`,
    );
  } finally {
    await server.stop();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
