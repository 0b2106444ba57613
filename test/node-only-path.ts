/**
 * What a machine with only Node.js and npm has: the tests that run the project the way a
 * newcomer does (a fresh clone, the packed tarball) put this PATH in their children's
 * environment, so that anything which silently needs Bun on PATH fails there first.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** PATH without any folder that holds a `bun`. */
export function pathWithoutBun(path = process.env.PATH ?? ""): string {
  const hasBun = (dir: string) => {
    try {
      accessSync(join(dir, "bun"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return path
    .split(delimiter)
    .filter((dir) => dir !== "" && !hasBun(dir))
    .join(delimiter);
}
