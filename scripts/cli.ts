#!/usr/bin/env bun
/**
 * The `leaveapi` executable (docs/cli.md). Global options may stand anywhere on the
 * line; each command parses its own. Exit 0 on success, 1 when a command fails, 2 on bad
 * usage; errors go to stderr as one clear line each.
 */
import { writeSync } from "node:fs";
import { CommandError, UsageError, helpFor, type Command, type GlobalOptions, type Io } from "./cli-kit.ts";
import { StoreUnavailableError } from "../lib/errors.ts";
import packageJson from "../package.json" with { type: "json" };
import { coalescedLines } from "./serve/coalesced-lines.ts";

/**
 * The commands, loaded only when run: `leaveapi org list` should not pay for loading the
 * HTTP server, metrics and the OpenAPI generator.
 */
export const COMMANDS: { name: string; summary: string; load: () => Promise<Command> }[] = [
  { name: "serve", summary: "serve the HTTP API", load: async () => (await import("./commands/serve.ts")).serveCommand },
  {
    name: "migrate",
    summary: "create or upgrade the database schema (safe to run again)",
    load: async () => (await import("./commands/migrate.ts")).migrateCommand,
  },
  {
    name: "org",
    summary: "create and list organisations; switch their API access on or off",
    load: async () => (await import("./commands/org.ts")).orgCommand,
  },
  {
    name: "credentials",
    summary: "mint, list and revoke an organisation's client credentials",
    load: async () => (await import("./commands/credentials.ts")).credentialsCommand,
  },
  {
    name: "webhooks",
    summary: "notify a credential's receiver when what it can read changes (signed webhooks)",
    load: async () => (await import("./commands/webhooks.ts")).webhooksCommand,
  },
  {
    name: "import",
    summary: "import employees, leave bookings or holidays from a JSONL, JSON, CSV or XLSX file",
    load: async () => (await import("./commands/import.ts")).importCommand,
  },
  {
    name: "erase",
    summary: "erase one employee and their bookings for good (an erasure request)",
    load: async () => (await import("./commands/erase.ts")).eraseCommand,
  },
  {
    name: "demo",
    summary: "create a demo organisation with sample data and print its credentials",
    load: async () => (await import("./commands/demo.ts")).demoCommand,
  },
  {
    name: "backup",
    summary: "copy the SQLite database consistently, even while the server runs",
    load: async () => (await import("./commands/backup.ts")).backupCommand,
  },
  {
    name: "check",
    summary: "check the database: integrity, foreign keys, schema version",
    load: async () => (await import("./commands/check.ts")).checkCommand,
  },
  {
    name: "healthcheck",
    summary: "ask a running server whether it answers (GET /livez; for container health checks)",
    load: async () => (await import("./commands/healthcheck.ts")).healthcheckCommand,
  },
  {
    name: "licenses",
    summary: "print the licences of the software this program contains",
    load: async () => (await import("./commands/licenses.ts")).licensesCommand,
  },
  {
    name: "fetch",
    summary: "write an endpoint of a running leaveapi to JSONL or CSV (for integrators)",
    load: async () => (await import("./commands/fetch.ts")).fetchCommand,
  },
];

const GLOBAL_HELP = `leaveapi ${packageJson.version}: a read-only, OAuth 2.0 protected API for employees, annual leave and holidays

usage: leaveapi [global options] <command> [options]

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join("\n")}

global options:
  --db FILE             SQLite database file (env LEAVEAPI_DB; default ./leaveapi.sqlite)
  --database-url URL    Postgres instead of SQLite (env DATABASE_URL)
  --database-read-url URL
                        a Postgres read replica for the data endpoints' reads
                        (env DATABASE_READ_URL); tokens and limits stay on the primary
  --json                print one JSON document on stdout
  --help, -h            help for leaveapi or for a command
  --version             print the version

Run 'leaveapi <command> --help' (or 'leaveapi help <command>') for a command's options.`;

/** Takes the global options out of argv, wherever they stand; the rest is the command's. */
function splitGlobal(argv: string[]): { global: GlobalOptions; rest: string[]; help: boolean; version: boolean } {
  const global: GlobalOptions = { json: false };
  const rest: string[] = [];
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    } else if (flag === "--db") global.db = value();
    else if (flag === "--database-url") global.databaseUrl = value();
    else if (flag === "--database-read-url") global.databaseReadUrl = value();
    else if (arg === "--json") global.json = true;
    else if (arg === "--help" || arg === "-h") help = true;
    else if (arg === "--version") version = true;
    else rest.push(arg);
  }
  if (global.db !== undefined && global.databaseUrl !== undefined) throw new UsageError("give either --db or --database-url, not both");
  return { global, rest, help, version };
}

export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const { global, rest, help, version } = splitGlobal(argv);
    if (version) {
      io.out(global.json ? JSON.stringify({ version: packageJson.version }) : packageJson.version);
      return 0;
    }
    // `leaveapi help [COMMAND [SUBCOMMAND]]` is `leaveapi [COMMAND [SUBCOMMAND]] --help`.
    const asked = rest[0] === "help" ? { rest: rest.slice(1), help: true } : { rest, help };
    return await runCommand(asked.rest, global, asked.help, io);
  } catch (error) {
    return failed(error, io);
  }
}

/** A command, or its help (`--help`, `leaveapi help`), or the list of commands. */
async function runCommand(rest: string[], global: GlobalOptions, help: boolean, io: Io): Promise<number> {
  const [name, ...args] = rest;
  if (name === undefined) {
    if (help) {
      io.out(GLOBAL_HELP);
      return 0;
    }
    throw new UsageError("no command given; run 'leaveapi --help' for the list");
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) throw new UsageError(`unknown command '${name}'; run 'leaveapi --help' for the list`);
  const command = await entry.load();
  if (help) {
    io.out(helpFor(command, args));
    return 0;
  }
  await command.run({ args, global, io });
  return 0;
}

/** SQLite's "another connection holds the lock". */
function heldLock(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** The exit status of an error, said on stderr in one line. */
function failed(error: unknown, io: Io): number {
  if (error instanceof UsageError) {
    io.err(`leaveapi: ${error.message}`);
    return 2;
  }
  if (error instanceof CommandError) {
    io.err(`leaveapi: ${error.message}`);
    return 1;
  }
  if (error instanceof StoreUnavailableError && heldLock(error.cause)) {
    // A lock simply held is no unreachable store (issue 35): say what to do.
    io.err(
      "leaveapi: the database is busy: another process (an import or a command) held its write lock past the busy timeout; nothing was changed, try again when it has finished",
    );
    return 1;
  }
  io.err(`leaveapi: unexpected failure: ${(error as Error)?.message ?? String(error)}`);
  return 1;
}

/**
 * Writes all of `text` to a standard stream before going on. process.stdout.write to a
 * pipe whose reader is slower than this process leaves what does not fit in a buffer, and
 * process.exit drops the buffer: an import's thousand problem lines arrived cut short.
 */
function writeAll(fd: number, text: string): void {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (error) {
      const code = (error as { code?: string }).code;
      // The reader went away (`leaveapi licenses | head`): what it did not read is not wanted, as for any command in a pipe.
      if (code === "EPIPE") process.exit(0);
      // A pipe opened non-blocking says "try again" while it is full: wait for the reader.
      if (code !== "EAGAIN") throw error;
      Bun.sleepSync(1);
    }
  }
}

if (import.meta.main) {
  const requestLog = coalescedLines((chunk) => process.stdout.write(chunk));
  const io: Io = {
    out: (text) => writeAll(1, `${text}\n`),
    err: (text) => writeAll(2, `${text}\n`),
    log: requestLog.line,
    errIsTty: Boolean(process.stderr.isTTY),
    env: process.env,
    stdin: () => Bun.stdin.stream() as unknown as AsyncIterable<Uint8Array>,
  };
  const code = await main(process.argv.slice(2), io);
  requestLog.flush();
  process.exit(code);
}
