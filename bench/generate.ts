/**
 * Writes the benchmark's import files: an organisation's employees and annual-leave
 * bookings as JSONL, in the import format of docs/cli.md, ready for `leaveapi import`.
 *
 *   bun bench/generate.ts --employees 10000 --bookings 1000000 --out DIR [--seed 7]
 *
 * Employees are spread over five calendars; bookings over five years (2022-2026), most
 * 1-10 days, one in 200 a long absence of one to six months, in every status, a few with
 * half days. `days` is left out so that the import computes it, as it must for an HR
 * export that does not carry it. The same seed always writes the same bytes.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { mulberry32 } from "../scripts/demo/demo-data.ts";

export const CALENDARS = ["GB-ENG", "GB-SCT", "DE-BY", "FR", "US"] as const;
const DEPARTMENTS = ["Engineering", "Sales", "Support", "Finance", "Operations", "People", "Marketing", "Legal"];
const FIRST = ["Oliver", "Amelia", "Lukas", "Anna", "Lucas", "Emma", "Noah", "Mia", "Priya", "Zara", "Hugo", "Léa", "Jonas", "Isla"];
const LAST = ["Smith", "Müller", "Martin", "Garcia", "Khan", "Dubois", "Wagner", "Lee", "Brown", "Fischer", "Moreau", "Nguyen"];
const STATUSES = ["approved", "approved", "approved", "approved", "approved", "approved", "pending", "rejected", "cancelled", "cancellation_requested"];
const FIRST_DAY = Date.UTC(2022, 0, 1);
const YEARS = 5;
const DAY_MS = 86_400_000;
const SPAN_DAYS = Math.round((Date.UTC(2022 + YEARS, 0, 1) - FIRST_DAY) / DAY_MS);

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const pad = (n: number, width: number) => String(n).padStart(width, "0");

export interface GenerateOptions {
  out: string;
  employees: number;
  bookings: number;
  seed?: number;
  /** File name prefix, so two organisations' files can share a directory. */
  prefix?: string;
}

export interface GeneratedFiles {
  employees: string;
  leave: string;
}

/** Writes `<prefix>employees.jsonl` and `<prefix>leave.jsonl` under `out`. */
export async function generate(options: GenerateOptions): Promise<GeneratedFiles> {
  const rand = mulberry32(options.seed ?? 7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
  mkdirSync(options.out, { recursive: true });
  const prefix = options.prefix ?? "";
  const files = { employees: join(options.out, `${prefix}employees.jsonl`), leave: join(options.out, `${prefix}leave.jsonl`) };

  const employees = Bun.file(files.employees).writer();
  for (let i = 1; i <= options.employees; i++) {
    employees.write(
      `${JSON.stringify({
        external_id: `E${pad(i, 6)}`,
        first_name: pick(FIRST),
        last_name: pick(LAST),
        preferred_name: null,
        job_title: "Specialist",
        department: pick(DEPARTMENTS),
        status: "active",
        start_date: isoDate(FIRST_DAY - Math.floor(rand() * 3650) * DAY_MS),
        leaving_date: null,
        holiday_calendar: CALENDARS[i % CALENDARS.length],
      })}\n`,
    );
  }
  await employees.end();

  const leave = Bun.file(files.leave).writer();
  const annual = { name: "Annual leave", category: "annual", is_paid: true };
  for (let i = 1; i <= options.bookings; i++) {
    const long = rand() < 0.005;
    const span = long ? 30 + Math.floor(rand() * 153) : Math.floor(rand() * 10);
    const start = FIRST_DAY + Math.floor(rand() * (SPAN_DAYS - span)) * DAY_MS;
    const halfStart = !long && rand() < 0.05;
    const status = pick(STATUSES);
    const requested = start - (1 + Math.floor(rand() * 60)) * DAY_MS;
    leave.write(
      `${JSON.stringify({
        external_id: `L${pad(i, 8)}`,
        employee_external_id: `E${pad(1 + Math.floor(rand() * options.employees), 6)}`,
        leave_type: annual,
        start_date: isoDate(start),
        end_date: isoDate(start + span * DAY_MS),
        start_half_day: halfStart,
        start_half_period: halfStart ? "pm" : null,
        status,
        requested_at: new Date(requested).toISOString(),
        reviewed_at: status === "pending" ? null : new Date(requested + DAY_MS).toISOString(),
        cancelled_at: status === "cancelled" ? new Date(requested + 2 * DAY_MS).toISOString() : null,
      })}\n`,
    );
    // Bun's file writer buffers without bound until flushed.
    if (i % 10_000 === 0) await leave.flush();
  }
  await leave.end();
  return files;
}

const USAGE = `usage: bun bench/generate.ts [--employees N] [--bookings N] [--out DIR] [--seed N] [--prefix TEXT]

Writes <prefix>employees.jsonl and <prefix>leave.jsonl under DIR (default bench/data) for
'leaveapi import', and prints their paths as JSON. Defaults: 10000 employees, 1000000
bookings (about 355 MB), seed 7. The same seed always writes the same bytes.`;

/** The command line's options; `null` for --help. Throws on an unknown flag or a value that is no count. */
export function generateOptions(args: string[]): GenerateOptions | null {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: "boolean", short: "h" },
      out: { type: "string", default: "bench/data" },
      employees: { type: "string", default: "10000" },
      bookings: { type: "string", default: "1000000" },
      seed: { type: "string", default: "7" },
      prefix: { type: "string", default: "" },
    },
  });
  if (values.help) return null;
  const count = (flag: "employees" | "bookings" | "seed", least: number) => {
    const text = values[flag];
    if (!/^\d+$/.test(text) || Number(text) < least || !Number.isSafeInteger(Number(text)))
      throw new Error(`--${flag} must be a whole number of at least ${least}, not '${text}'`);
    return Number(text);
  };
  return { out: values.out, employees: count("employees", 1), bookings: count("bookings", 0), seed: count("seed", 0), prefix: values.prefix };
}

if (import.meta.main) {
  let options: GenerateOptions | null;
  try {
    options = generateOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (options === null) console.log(USAGE);
  else console.log(JSON.stringify(await generate(options)));
}
