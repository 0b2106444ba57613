/** What the import tests on a fresh store share: files written to a scratch folder, an organisation to import into, and a check that an import landed. */
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importFile, type ImportKind, type ImportOutcome } from "../scripts/import/import-file.ts";
import { createOrganisation, createWorld } from "./support.ts";

/** A function that writes `text` to a fresh file with that extension under a folder removed after the test file; its path. */
export function scratchFiles(prefix: string): { dir: string; file: (extension: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), `leaveapi-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return {
    dir,
    file(extension, text) {
      const path = join(dir, `f${++n}.${extension}`);
      writeFileSync(path, text);
      return path;
    },
  };
}

/** A world with one organisation, and `run`, which imports a file into it. */
export async function importSetup() {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const run = (kind: ImportKind, path: string, extra: Partial<Parameters<typeof importFile>[1]> = {}) =>
    importFile(world.store, { organisationId: org, kind, file: path, now: world.clock.now(), ...extra });
  return { world, org, run };
}

/** The outcome of an import that must have landed; its problems as the error otherwise. */
export function landed(outcome: ImportOutcome): Extract<ImportOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(outcome.errors.join("\n"));
  return outcome;
}
