/**
 * `leaveapi healthcheck`: is a server answering? A GET of its /livez, exit 0 on 200, else
 * 1 with the reason: the container image's HEALTHCHECK (scripts/image.ts), which has no
 * curl, and any monitor that runs a command. It reads no database.
 */
import { CommandError, parseCommandArgs, report, UsageError, type Command } from "../cli-kit.ts";

const USAGE = "leaveapi healthcheck [URL] [--timeout SECONDS]";
const DEFAULT_TIMEOUT_SECONDS = 5;

/** This machine's server as `serve` would listen given the same environment: PORT, and HTTPS when LEAVEAPI_TLS_CERT is set. */
function localLivez(env: Record<string, string | undefined>): string {
  const port = env.PORT && env.PORT !== "" ? env.PORT : "8080";
  return `${env.LEAVEAPI_TLS_CERT ? "https" : "http"}://127.0.0.1:${port}/livez`;
}

export const healthcheckCommand: Command = {
  name: "healthcheck",
  usage: USAGE,
  help: `usage: ${USAGE}

Asks a running server whether it answers: GET URL (by default /livez on 127.0.0.1 at the
port serve would use: PORT, 8080 unless set; HTTPS when LEAVEAPI_TLS_CERT is set, its
certificate not checked since it is this machine's own). Exit 0 when it answers 200,
else 1 with the reason. For container HEALTHCHECKs and monitors; it reads no database.

  --timeout SECONDS   how long to wait for the answer (default ${DEFAULT_TIMEOUT_SECONDS})`,
  async run(ctx) {
    const { values, positionals } = parseCommandArgs(ctx.args, { timeout: { type: "string" } }, USAGE, 1);
    const timeout = Number(values.timeout ?? DEFAULT_TIMEOUT_SECONDS);
    if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout must be a number of seconds above 0, not '${values.timeout}'`);
    const url = positionals[0] ?? localLivez(ctx.io.env);
    if (!/^https?:\/\//.test(url)) throw new UsageError(`URL must start with http:// or https://, not '${url}'`);
    const local = positionals[0] === undefined;
    let status: number;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeout * 1000), ...(local ? { tls: { rejectUnauthorized: false } } : {}) });
      await res.arrayBuffer();
      status = res.status;
    } catch (error) {
      const reason = (error as Error).name === "TimeoutError" ? `no answer within ${timeout} s` : (error as Error).message;
      throw new CommandError(`${url}: ${reason}`);
    }
    if (status !== 200) throw new CommandError(`${url} answered ${status}`);
    report(ctx, { url, status }, () => `ok: ${url} answered ${status}`);
  },
};
