/**
 * leaveapi(1), the manual page the Debian package installs: made at release time from the
 * command line's own help (`leaveapi --help`, each `leaveapi COMMAND --help` and each
 * subcommand's), so it says exactly what the binary says and cannot drift from it. The
 * help text is set as it prints (no-fill), with the reference documents installed beside
 * it named under SEE ALSO.
 */
import { COMMANDS, main } from "../cli.ts";
import type { Io } from "../cli-kit.ts";

/** What `leaveapi ARGS` prints on stdout (help never fails; a failure here is a bug). */
async function helpText(args: string[]): Promise<string> {
  const out: string[] = [];
  const io: Io = {
    out: (text) => out.push(text),
    err: (text) => out.push(text),
    log: (text) => out.push(text),
    errIsTty: false,
    env: {},
    stdin: () => {
      throw new Error("help reads no input");
    },
  };
  const code = await main(args, io);
  if (code !== 0) throw new Error(`leaveapi ${args.join(" ")} exited ${code}: ${out.join("\n")}`);
  return out.join("\n");
}

/** Text safe to set in roff: backslashes escaped, no line read as a request, no hyphen turned into a minus sign. */
export function roffEscape(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replaceAll("\\", "\\e").replaceAll("-", "\\-"))
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join("\n");
}

/** Preformatted text, as the terminal shows it. */
function verbatim(text: string): string {
  return `.nf\n${roffEscape(text.trimEnd())}\n.fi`;
}

export async function renderManPage(version: string, sourceDate: number): Promise<string> {
  const date = new Date(sourceDate * 1000).toISOString().slice(0, 10);
  const global = await helpText(["--help"]);
  const sections: string[] = [];
  for (const command of COMMANDS) {
    sections.push(`.SS ${command.name}`, verbatim(await helpText([command.name, "--help"])));
    const loaded = await command.load();
    for (const sub of Object.keys(loaded.subcommandHelp ?? {})) {
      sections.push(`.SS "${command.name} ${sub}"`, verbatim(await helpText([command.name, sub, "--help"])));
    }
  }
  return [
    `.\\" leaveapi ${version}: made by scripts/release/man-page.ts from the command line's own help. Do not edit.`,
    `.TH LEAVEAPI 1 ${date} "leaveapi ${version}" "User Commands"`,
    ".SH NAME",
    "leaveapi \\- a read\\-only, OAuth 2.0 protected API for employees, annual leave and holidays",
    ".SH SYNOPSIS",
    ".B leaveapi",
    "[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR]",
    ".SH DESCRIPTION",
    "One executable serves the HTTP API",
    "(\\fBleaveapi serve\\fR)",
    "and administers it: organisations, client credentials, imports from HR systems' exports,",
    "backups and checks. What follows is the help each command prints",
    "(\\fBleaveapi help\\fR \\fIcommand\\fR).",
    ".SH OPTIONS",
    verbatim(global),
    ".SH COMMANDS",
    ...sections,
    ".SH EXIT STATUS",
    "0 on success, 1 when a command fails, 2 on bad usage; errors go to standard error, one line each.",
    ".SH FILES",
    ".TP",
    ".I /etc/leaveapi/leaveapi.env",
    "the service's settings (the Debian package's systemd unit reads it)",
    ".TP",
    ".I /var/lib/leaveapi/leaveapi.sqlite",
    "the service's database",
    ".SH SEE ALSO",
    "The guides installed with the package, in",
    ".IR /usr/share/doc/leaveapi/ :",
    ".I install.md",
    "(installing, TLS, backups, upgrades, running without systemd),",
    ".I cli.md",
    "(every command, the import format and other systems' exports) and",
    ".I api.md",
    "(the HTTP API).",
    "",
  ].join("\n");
}
