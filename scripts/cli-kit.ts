/**
 * The command line's plumbing: errors that carry an exit code (docs/cli.md, "Exit status,
 * errors and output": 1 for a failure, 2 for bad usage), option parsing on node:util, and
 * output that is either one JSON document (--json) or lines for a person.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Bad usage: unknown command or flag, a required argument missing. Exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command could not do its work: unknown organisation or client, missing or invalid file. Exit 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

export interface GlobalOptions {
  db?: string;
  databaseUrl?: string;
  databaseReadUrl?: string;
  json: boolean;
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (progress lines are drawn only there). */
  errIsTty: boolean;
  env: Record<string, string | undefined>;
  stdin: () => AsyncIterable<Uint8Array>;
}

export interface CommandContext {
  args: string[];
  global: GlobalOptions;
  io: Io;
}

export interface Command {
  name: string;
  usage: string;
  help: string;
  run: (ctx: CommandContext) => Promise<void>;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses a command's own flags; anything unknown is a UsageError naming the command's usage. */
export function parseCommandArgs<O extends Options>(args: string[], options: O, usage: string, positionals = 0) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]}\nusage: ${usage}`);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`unexpected argument '${parsed.positionals[positionals]}'\nusage: ${usage}`);
  }
  return parsed;
}

export function requireValue(value: string | undefined, what: string, usage: string): string {
  if (value === undefined || value === "") throw new UsageError(`${what} is required\nusage: ${usage}`);
  return value;
}

/** Prints `value` as one JSON document with --json, else the human lines. */
export function report(ctx: CommandContext, value: unknown, human: () => string): void {
  if (ctx.global.json) ctx.io.out(JSON.stringify(value, null, 2));
  else ctx.io.out(human());
}
