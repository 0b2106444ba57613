/**
 * The benchmark's database: a large organisation (10,000 employees, 1,000,000 bookings by
 * default) and a small one (10,000 bookings), both imported through `leaveapi import`
 * from the generator's JSONL files, with API access on, one set of credentials each for
 * data requests and, for the large one, many more for token requests.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openPostgresStore, type PostgresDriver } from "../../adapters/postgres.ts";
import { openSqliteStore } from "../../adapters/bun/sqlite.ts";
import type { SqlAdminStore } from "../../adapters/sql/sql-admin-store.ts";
import { mintClient } from "../../lib/credentials.ts";
import { ALL_SCOPES } from "../../lib/scopes.ts";
import { generate, type GeneratedFiles } from "../generate.ts";
import { runCli, type CliRun } from "./processes.ts";

export interface DatabaseTarget {
  kind: "sqlite" | "postgres";
  /** The global options that point `leaveapi` at it. */
  args: string[];
  open: () => SqlAdminStore;
}

export function sqliteTarget(file: string): DatabaseTarget {
  return { kind: "sqlite", args: ["--db", file], open: () => openSqliteStore({ filename: file }) };
}

/** `driver`: the client library `open` uses (adapters/postgres.ts; default the runtime's); the commands take LEAVEAPI_PG_DRIVER's. */
export function postgresTarget(url: string, driver?: PostgresDriver): DatabaseTarget {
  return { kind: "postgres", args: ["--database-url", url], open: () => openPostgresStore({ connectionString: url, driver }) };
}

export interface Credentials {
  id: string;
  secret: string;
}

export interface OrgData {
  id: string;
  employees: number;
  bookings: number;
  data: Credentials;
}

export interface Dataset {
  big: OrgData;
  small: OrgData;
  /** Credentials of the large organisation for the token benchmark, each used under its limit. */
  tokenClients: Credentials[];
  /** The large organisation's leave import. */
  leaveImport: CliRun & { rows: number };
}

export interface DatasetSize {
  employees: number;
  bookings: number;
  smallEmployees: number;
  smallBookings: number;
  tokenClients: number;
}

export async function writeFiles(dir: string, size: DatasetSize): Promise<{ big: GeneratedFiles; small: GeneratedFiles }> {
  return {
    big: await generate({ out: dir, employees: size.employees, bookings: size.bookings, prefix: "big-" }),
    small: await generate({ out: dir, employees: size.smallEmployees, bookings: size.smallBookings, prefix: "small-", seed: 11 }),
  };
}

async function createOrg(target: DatabaseTarget, name: string): Promise<string> {
  const { id } = JSON.parse((await runCli([...target.args, "org", "create", "--name", name, "--json"])).stdout) as { id: string };
  await runCli([...target.args, "org", "enable-api", id]);
  return id;
}

async function createCredentials(target: DatabaseTarget, org: string): Promise<Credentials> {
  const out = JSON.parse((await runCli([...target.args, "credentials", "create", "--org", org, "--name", "bench", "--json"])).stdout);
  return { id: out.client_id, secret: out.client_secret };
}

/** Imports both organisations through the command line and mints their credentials. */
export async function buildDataset(target: DatabaseTarget, files: { big: GeneratedFiles; small: GeneratedFiles }, size: DatasetSize): Promise<Dataset> {
  await runCli([...target.args, "migrate"]);
  const bigId = await createOrg(target, "Benchmark Large");
  const smallId = await createOrg(target, "Benchmark Small");
  await runCli([...target.args, "import", "--org", bigId, "--kind", "employees", files.big.employees]);
  const leaveImport = await runCli([...target.args, "import", "--org", bigId, "--kind", "leave", files.big.leave]);
  await runCli([...target.args, "import", "--org", smallId, "--kind", "employees", files.small.employees]);
  await runCli([...target.args, "import", "--org", smallId, "--kind", "leave", files.small.leave]);

  // A thousand `credentials create` processes would take minutes; the store mints them directly.
  const store = target.open();
  const tokenClients: Credentials[] = [];
  try {
    for (let i = 0; i < size.tokenClients; i++) {
      const { client, secret } = mintClient(bigId, [...ALL_SCOPES], `bench-token-${i}`, Date.now());
      await store.createClient(client);
      tokenClients.push({ id: client.client_id, secret });
    }
  } finally {
    await store.close();
  }
  return {
    big: { id: bigId, employees: size.employees, bookings: size.bookings, data: await createCredentials(target, bigId) },
    small: { id: smallId, employees: size.smallEmployees, bookings: size.smallBookings, data: await createCredentials(target, smallId) },
    tokenClients,
    leaveImport: { ...leaveImport, rows: size.bookings },
  };
}

export const dataDir = (root: string) => join(root, "data");

/**
 * The SQLite database of a benchmark's directory and what it holds: generated and imported
 * the first time (`writeFiles`, `buildDataset`), kept in `dir` for the next run.
 */
export async function sqliteDatasetIn(dir: string, size: DatasetSize): Promise<{ target: DatabaseTarget; data: Dataset }> {
  const target = sqliteTarget(join(dir, "bench.sqlite"));
  const datasetFile = join(dir, "dataset.json");
  if (existsSync(datasetFile)) return { target, data: (await Bun.file(datasetFile).json()) as Dataset };
  const data = await buildDataset(target, await writeFiles(dataDir(dir), size), size);
  await Bun.write(datasetFile, JSON.stringify(data));
  return { target, data };
}

/** The files `sqliteDatasetIn` generated in `dir`, to load them into another database. */
export function generatedFilesIn(dir: string): { big: GeneratedFiles; small: GeneratedFiles } {
  const file = (name: string) => join(dataDir(dir), name);
  return {
    big: { employees: file("big-employees.jsonl"), leave: file("big-leave.jsonl") },
    small: { employees: file("small-employees.jsonl"), leave: file("small-leave.jsonl") },
  };
}
