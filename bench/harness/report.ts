/**
 * bench/RESULTS.md: the machine, the versions, the commands, every run, and the issue's
 * targets with what was measured against them.
 */
import { cpus, release, totalmem } from "node:os";
import type { WrkResult } from "./wrk.ts";

export interface Target {
  id: string;
  measure: string;
  target: string;
  measured: string;
  met: boolean | null;
  /** Issue 41's round-four targets (4); the rest hold round three's (issue 29), the default. */
  round?: 3 | 4;
}

export interface NamedRun {
  name: string;
  result: WrkResult;
  connections: number;
}

export interface ReportInput {
  title: string;
  command: string;
  versions: Record<string, string>;
  setup: string[];
  targets: Target[];
  runs: NamedRun[];
  other: [string, string][];
}

export function machineDescription(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}`;
}

const verdict = (met: boolean | null) => (met === null ? "reported" : met ? "met" : "**missed**");

const order = (id: string) => parseInt(id, 10) || 1e9;

function targetTable(targets: Target[]): string[] {
  return [
    "| # | measure | target | measured | |",
    "|---|---|---|---|---|",
    // By number (6b after 6), whatever order the run measured them in; rows named otherwise last.
    ...[...targets].sort((a, b) => order(a.id) - order(b.id)).map((t) => `| ${t.id} | ${t.measure} | ${t.target} | ${t.measured} | ${verdict(t.met)} |`),
  ];
}

export function renderReport(input: ReportInput): string {
  const lines = [
    `# ${input.title}`,
    "",
    `Written by \`${input.command}\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC.`,
    "",
    `- Machine: ${machineDescription()}`,
    ...Object.entries(input.versions).map(([k, v]) => `- ${k}: ${v}`),
    ...input.setup.map((s) => `- ${s}`),
    "",
    "## Targets of issue 41 (round four), each a ratio on one machine in one run",
    "",
    ...targetTable(input.targets.filter((t) => t.round === 4)),
    "",
    "## Round three's targets still held (issue 29)",
    "",
    ...targetTable(input.targets.filter((t) => t.round !== 4)),
    "",
    "## Every load run",
    "",
    "| run | connections | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | non-2xx | socket errors |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...input.runs.map(
      ({ name, result: r, connections }) =>
        `| ${name} | ${connections} | ${r.requests} | ${r.rps} | ${r.p50_ms.toFixed(2)} | ${r.p90_ms.toFixed(2)} | ${r.p99_ms.toFixed(2)} | ${r.max_ms.toFixed(2)} | ${r.non_2xx} | ${r.socket_errors} |`,
    ),
    "",
    "## Other figures",
    "",
    ...input.other.map(([k, v]) => `- ${k}: ${v}`),
    "",
  ];
  return lines.join("\n");
}
