/**
 * The credits the licences of what we ship require, written from the inventory of the
 * bundles (bundled-packages.ts): THIRD-PARTY-NOTICES.txt (in the repository, the npm
 * package, the .deb and the binary, which prints it as `leaveapi licenses`), Debian's
 * machine-readable copyright file, and a CycloneDX SBOM.
 */
import type { BundledPackage } from "./bundled-packages.ts";

const RULE = "-".repeat(78);

/** The public holiday data's own credit: date-holidays' data is CC BY-SA 3.0 and asks for attribution. */
const HOLIDAY_DATA_CREDIT = `The public holidays leaveapi serves come from the date-holidays package's data
(https://github.com/commenthol/date-holidays), which is available under the
Creative Commons Attribution-ShareAlike 3.0 licence (CC BY-SA 3.0,
https://creativecommons.org/licenses/by-sa/3.0/), as it relies on Wikipedia
articles; its attributions are in date-holidays' licence text below. leaveapi
passes the data on unchanged in substance (it computes dates from the rules), and
what it serves of that data is under the same licence.`;

const MIT_TEXT = `Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN
AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE
OR OTHER DEALINGS IN THE SOFTWARE.`;

const ISC_TEXT = `Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is
hereby granted, provided that the above copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE
INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF
USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.`;

/**
 * A package's licence text: its own file, or for an MIT or ISC package that ships none
 * (their terms ask for the notice to travel with the code), the standard text with its
 * author as copyright holder. `null` when neither: a package the notices cannot credit,
 * which test/third-party-notices.test.ts refuses.
 */
export function licenseTextOf(p: BundledPackage): string | null {
  if (p.licenseText !== null) return p.licenseText;
  const holder = p.author ?? `the ${p.name} authors`;
  const standard = p.license === "MIT" ? MIT_TEXT : p.license === "ISC" ? ISC_TEXT : null;
  if (standard === null) return null;
  return `(The package ships no licence file: the standard ${p.license} text, with its author from package.json.)\n\nCopyright (c) ${holder}\n\n${standard}`;
}

/** THIRD-PARTY-NOTICES.txt: the holiday data's credit, then every bundled package with its licence text. */
export function renderNotices(product: { name: string; version: string }, packages: BundledPackage[], runtime: BundledPackage): string {
  const all = [runtime, ...packages];
  const parts = [
    `THIRD-PARTY NOTICES for ${product.name} ${product.version}`,
    "",
    `${product.name} itself is MIT-licensed (LICENSE). Its binary, its command line and its npm`,
    "package contain the following software, each under its own licence. This file is",
    `written at build from what the bundles contain (scripts/release/); '${product.name} licenses'`,
    "prints it.",
    "",
    RULE,
    "Public holiday data",
    RULE,
    HOLIDAY_DATA_CREDIT,
    "",
    RULE,
    "Contents",
    RULE,
    ...all.map((p) => `${p.name} ${p.version}: ${p.license}`),
  ];
  for (const p of all) {
    parts.push("", RULE, `${p.name} ${p.version}`, `License: ${p.license}`, ...(p.repository ? [`Source: ${p.repository}`] : []), RULE);
    const text = licenseTextOf(p);
    if (text === null) throw new Error(`${p.name} ${p.version} (${p.license || "no licence given"}) has no licence text to credit it with`);
    parts.push(text);
  }
  return `${parts.join("\n")}\n`;
}

/** /usr/share/doc/leaveapi/copyright in Debian's machine-readable format (copyright-format 1.0). */
export function renderDebianCopyright(ownLicense: string, packages: BundledPackage[], runtime: BundledPackage): string {
  const indent = (text: string) =>
    text
      .split("\n")
      .map((line) => (line.trim() === "" ? " ." : ` ${line}`))
      .join("\n");
  const stanzas = [
    [
      "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
      "Upstream-Name: leaveapi",
      "Comment: The binary bundles the packages below; THIRD-PARTY-NOTICES.txt in this folder",
      " has each one's licence text, and the CC BY-SA 3.0 credit of the holiday data.",
    ].join("\n"),
    ["Files: *", "Copyright: the leaveapi authors", "License: MIT", indent(ownLicense)].join("\n"),
  ];
  for (const p of [runtime, ...packages]) {
    stanzas.push(
      [
        `Files: bundled/${p.name}`,
        `Copyright: the ${p.name} authors`,
        `License: ${p.license.replaceAll(/[()]/g, "").replaceAll(" AND ", " and ").replaceAll(" OR ", " or ") || "unknown"}`,
        indent(debianLicenseText(p)),
      ].join("\n"),
    );
  }
  return `${stanzas.join("\n\n")}\n`;
}

/**
 * A package's licence text for Debian's copyright file: Debian policy (12.5) points to the
 * copy every system has in /usr/share/common-licenses for the licences kept there,
 * instead of repeating them.
 */
function debianLicenseText(p: BundledPackage): string {
  if (p.license === "Apache-2.0") return "On Debian systems, the full text of the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.";
  return licenseTextOf(p) ?? `The package ships no licence file; package.json says ${p.license}.`;
}

/** A CycloneDX 1.5 SBOM of the binary: leaveapi, the runtime, and every bundled package with its version and licence. */
export function renderSbom(product: { name: string; version: string }, packages: BundledPackage[], runtime: BundledPackage, serial: string): string {
  const component = (p: BundledPackage, type: "library" | "framework") => ({
    type,
    "bom-ref": `pkg:npm/${p.name}@${p.version}`,
    name: p.name,
    version: p.version,
    purl: `pkg:npm/${p.name.replace("@", "%40")}@${p.version}`,
    licenses: [{ expression: p.license }],
    ...(p.repository ? { externalReferences: [{ type: "vcs", url: p.repository.replace(/^git\+/, "") }] } : {}),
  });
  const self = `pkg:npm/${product.name}@${product.version}`;
  const bom = {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    serialNumber: `urn:uuid:${serial}`,
    version: 1,
    metadata: {
      component: { type: "application", "bom-ref": self, name: product.name, version: product.version, licenses: [{ license: { id: "MIT" } }] },
    },
    components: [component(runtime, "framework"), ...packages.map((p) => component(p, "library"))],
    dependencies: [{ ref: self, dependsOn: [runtime, ...packages].map((p) => `pkg:npm/${p.name}@${p.version}`) }],
  };
  return `${JSON.stringify(bom, null, 2)}\n`;
}
