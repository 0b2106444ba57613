/**
 * The credits the licences of what we ship require (issue 27): THIRD-PARTY-NOTICES.txt is
 * what the command line's bundles contain now, every bundled package has a licence text
 * (its own, or the standard MIT/ISC text with its author), the holiday data's CC BY-SA
 * credit is there, and `leaveapi licenses` prints the file. Adding, removing or upgrading a
 * bundled package fails here until `npm run notices` is run and the file committed.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { main } from "../scripts/cli.ts";
import type { Io } from "../scripts/cli-kit.ts";
import { bundledPackages, bunRuntime } from "../scripts/release/bundled-packages.ts";
import { licenseTextOf, renderSbom } from "../scripts/release/notices.ts";
import { currentNotices, NOTICES_FILE } from "../scripts/write-notices.ts";

const committed = readFileSync(NOTICES_FILE, "utf8");

test("THIRD-PARTY-NOTICES.txt is what the bundles hold now (else: npm run notices, and commit it)", async () => {
  expect(committed).toBe(await currentNotices());
}, 60_000);

test("every bundled package, and Bun, has a licence text and a line in the contents; the known ones are there", async () => {
  const packages = await bundledPackages();
  for (const p of [bunRuntime(), ...packages]) {
    expect({ name: p.name, credited: licenseTextOf(p) !== null }).toEqual({ name: p.name, credited: true });
    expect(committed).toContain(`\n${p.name} ${p.version}: ${p.license}\n`);
  }
  // What the issue named: bundled, and credited.
  for (const name of ["date-holidays", "csv-parse", "csv-stringify", "prom-client", "kysely", "@scalar/api-reference", "pg", "yauzl"]) {
    expect(packages.map((p) => p.name)).toContain(name);
  }
  expect(committed).toContain("Creative Commons Attribution-ShareAlike 3.0");
  expect(committed).toContain("CC BY-SA 3.0 Attributions");
}, 60_000);

test("the SBOM lists the same packages with versions, licences and package URLs", async () => {
  const packages = await bundledPackages();
  const sbom = JSON.parse(renderSbom({ name: "leaveapi", version: "9.9.9" }, packages, bunRuntime(), "00000000-0000-4000-8000-000000000000"));
  expect(sbom).toMatchObject({ bomFormat: "CycloneDX", specVersion: "1.5", metadata: { component: { name: "leaveapi", version: "9.9.9" } } });
  expect(sbom.components).toHaveLength(packages.length + 1);
  expect(sbom.components).toContainEqual(
    expect.objectContaining({ name: "@scalar/api-reference", purl: expect.stringMatching(/^pkg:npm\/%40scalar\/api-reference@\d/) }),
  );
  expect(sbom.components.find((c: { name: string }) => c.name === "date-holidays").licenses).toEqual([{ expression: "(ISC AND CC-BY-3.0)" }]);
}, 60_000);

test("leaveapi licenses prints the file", async () => {
  const out: string[] = [];
  const io: Io = { out: (t) => out.push(t), err: () => {}, errIsTty: false, env: {}, stdin: () => (async function* () {})() };
  expect(await main(["licenses"], io)).toBe(0);
  expect(out.join("\n")).toBe(committed.trimEnd());
});
