/**
 * The command line's plumbing: errors that carry an exit code (docs/cli.md, "Exit status,
 * errors and output": 1 for a failure, 2 for bad usage), option parsing on node:util, and
 * output that is either one JSON document (--json) or lines for a person.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { suggestField } from "./import/field-rules.ts";

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
  /** A line to stdout, all of it written before the call returns (so an exit loses none). */
  out: (text: string) => void;
  /** A line to stderr, likewise. */
  err: (text: string) => void;
  /**
   * A line of `serve`'s log: buffered, never blocking the server on a slow reader of
   * stdout, and request lines written in batches; an `urgent` line (a server event) is
   * written at once (default: `out`).
   */
  log?: (text: string, urgent?: boolean) => void;
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
  /** Each subcommand's own help, for `leaveapi COMMAND SUBCOMMAND --help`. */
  subcommandHelp?: Record<string, string>;
  run: (ctx: CommandContext) => Promise<void>;
}

/** The help `--help` prints for these arguments: a subcommand's own when the command has one of that name. */
export function helpFor(command: Command, args: string[]): string {
  const sub = args.find((a) => !a.startsWith("-"));
  return (sub !== undefined && command.subcommandHelp?.[sub]) || command.help;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The flag as typed, without an `=value`. */
const flagOf = (arg: string) => (arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg);

/**
 * One clear line for what node:util's parseArgs refused, in place of its own message
 * (which quotes the flag with an unbalanced quote and suggests `--`): the flag, what is
 * wrong with it, and the nearest known flag when it looks like a typo of one.
 */
function describeParseError(error: unknown, args: string[], options: Options): string {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? String(error);
  const known = Object.keys(options).map((name) => `--${name}`);
  const typed = args.map(flagOf).find((a) => a.startsWith("-") && a !== "-" && a !== "--" && !known.includes(a));
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && typed !== undefined) {
    const guess = suggestField(typed, known);
    const hint = guess ? `; did you mean ${guess}?` : known.length > 0 ? `; the options are ${known.join(", ")}` : "; this command takes no options";
    return `unknown option ${typed}${hint}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = known.find((k) => message.includes(`${k} `) || message.includes(`${k}'`) || message.includes(`${k}"`));
    return flag ? `${flag} needs a value` : "an option is missing its value";
  }
  return message.split("\n")[0]!.replace(/['"]/g, "");
}

/** Parses a command's own flags; anything unknown is a UsageError naming the command's usage. */
export function parseCommandArgs<O extends Options>(args: string[], options: O, usage: string, positionals = 0) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${describeParseError(error, args, options)}\nusage: ${usage}`);
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
