#!/usr/bin/env bun
/**
 * `npm run notices`: writes THIRD-PARTY-NOTICES.txt at the repository root from what the
 * command line's bundles contain (scripts/release/). Run it after adding, removing or
 * upgrading a package the command line bundles, and commit the file: the binary and the
 * npm package carry it (`leaveapi licenses` prints it), and test/third-party-notices.test.ts
 * fails while it differs from what the bundles hold.
 */
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { bundledPackages, bunRuntime } from "./release/bundled-packages.ts";
import { renderNotices } from "./release/notices.ts";

export const NOTICES_FILE = join(import.meta.dir, "../THIRD-PARTY-NOTICES.txt");

/** The notices as the bundles are now. */
export async function currentNotices(): Promise<string> {
  return renderNotices(packageJson, await bundledPackages(), bunRuntime());
}

if (import.meta.main) {
  const text = await currentNotices();
  writeFileSync(NOTICES_FILE, text);
  console.log(`${relative(process.cwd(), NOTICES_FILE) || NOTICES_FILE}: ${text.length} bytes`);
}
