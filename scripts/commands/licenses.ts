/**
 * `leaveapi licenses`: the credits of what this program contains (THIRD-PARTY-NOTICES.txt,
 * written from the bundles' contents by scripts/write-notices.ts), carried inside the
 * binary and the npm package's command line so that they travel with every copy.
 */
import notices from "../../THIRD-PARTY-NOTICES.txt" with { type: "text" };
import { parseCommandArgs, type Command } from "../cli-kit.ts";

const USAGE = "leaveapi licenses";

export const licensesCommand: Command = {
  name: "licenses",
  usage: USAGE,
  help: `usage: ${USAGE}

Prints the licences of the software this program contains (Bun, the packages bundled into
it, and the CC BY-SA 3.0 credit of the public holiday data), as THIRD-PARTY-NOTICES.txt
ships beside it. leaveapi itself is MIT-licensed.`,
  async run(ctx) {
    parseCommandArgs(ctx.args, {}, USAGE);
    ctx.io.out(notices.trimEnd());
  },
};
