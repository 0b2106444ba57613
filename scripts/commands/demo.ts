/** `leaveapi demo`: a new demo organisation with data and credentials, in one step. */
import { parseCommandArgs, report, type Command } from "../cli-kit.ts";
import { openMigratedStore } from "../open-store.ts";
import { seedDemo } from "../demo/seed-demo.ts";

const USAGE = "leaveapi demo";

/** Where `leaveapi serve` listens by default: the curl line works as printed after a plain `serve`. */
const DEFAULT_BASE_URL = "http://127.0.0.1:8080";

export const demoCommand: Command = {
  name: "demo",
  usage: USAGE,
  help: `usage: ${USAGE}

Creates a new organisation "Demo Ltd" (API access on) each time it runs: about 240
employees over five holiday calendars, two years of leave in every status, company
closures, and credentials with every scope. The client secret is shown once.`,
  async run(ctx) {
    parseCommandArgs(ctx.args, {}, USAGE);
    const store = await openMigratedStore(ctx);
    try {
      const demo = await seedDemo(store, new Date());
      const result = {
        organisation_id: demo.organisation.id,
        organisation_name: demo.organisation.name,
        client_id: demo.client_id,
        client_secret: demo.client_secret,
        scopes: demo.scopes,
      };
      report(ctx, result, () =>
        [
          `created demo organisation ${result.organisation_id} (${result.organisation_name})`,
          `client_id:     ${result.client_id}`,
          `client_secret: ${result.client_secret}`,
          `scopes:        ${result.scopes.join(" ")}`,
          "The secret is shown only now: store it safely. It cannot be read back.",
          "",
          "Start the API on this same database with 'leaveapi serve', then get a token:",
          `  curl -s -u '${result.client_id}:${result.client_secret}' -d grant_type=client_credentials ${DEFAULT_BASE_URL}/v1/oauth/token`,
        ].join("\n"),
      );
    } finally {
      await store.close();
    }
  },
};
