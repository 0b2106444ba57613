/**
 * The programs an end-to-end test runs besides leaveapi (Debian's lintian, podman, ...).
 * CI installs every one (.ci/run), so a missing one is never a reason to skip: the test
 * fails at once, naming what to install, rather than failing later on a cryptic ENOENT.
 */

/** One program: its name on PATH and the Debian package that brings it. */
export interface Tool {
  command: string;
  debian: string;
}

/** Throws, naming each missing program and the apt-get line that installs them all. */
export function requireTools(testFile: string, tools: Tool[]): void {
  const missing = tools.filter((tool) => !Bun.which(tool.command) && !Bun.which(tool.command, { PATH: "/usr/sbin:/sbin:/usr/bin:/bin" }));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((tool) => tool.debian))].join(" ");
  throw new Error(
    `${testFile} needs ${missing.map((tool) => tool.command).join(", ")}, not installed here. ` +
      `On Debian or Ubuntu: apt-get install ${packages} (.ci/run installs them for CI).`,
  );
}
