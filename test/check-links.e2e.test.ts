/**
 * scripts/check-links.ts, the dead-link check `npm test` runs: on a small repository
 * written to a temporary directory, it names each dead link, dead anchor, dead citation
 * and missing file a comment names, and nothing that resolves or is another project's.
 * (Paths in these fixtures are built from pieces, so that the check, run on this
 * repository, does not read them as citations of its own.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findDeadLinks, slug } from "../scripts/check-links.ts";

const DOCS = "docs";
const GUIDE = `${DOCS}/guide.md`;
const TS = ".ts";
const MD = ".md";

const FILES: Record<string, string> = {
  "README.md": [
    "# Demo",
    "",
    `Read [the guide](${GUIDE}), [its errors](${GUIDE}#errors) and [the second Errors](${GUIDE}#errors-1).`,
    `A [numbered section](${GUIDE}#2-limits-and-quotas), [a same-file anchor](#demo) and [a folder](${DOCS}/).`,
    "[External](https://example.com/missing.md) and [mail](mailto:someone@example.com) are not followed.",
    "",
    `Dead: [a missing page](${DOCS}/missing.md) and [a missing heading](${GUIDE}#no-such-heading).`,
    "Outside: [the shared spec](../shared/spec.md).",
    "",
    "```md",
    "[inside a code block](nowhere.md)",
    "```",
    "`[in inline code](nowhere-either.md)`",
    "",
    `[ref]: ${DOCS}/also-missing.md`,
    "",
    `In code spans: \`lib/code${TS}\` resolves, \`lib/renamed${TS}\` is dead, \`leaveapi import --map bamboo.json\` is not the repository's.`,
  ].join("\n"),
  [GUIDE]: [
    "# The guide",
    "## Errors",
    "## `GET /v1/employees/{id}`",
    "## Errors",
    "## 2. Limits and quotas",
    "",
    "**When the server stops answering.** A bold lead-in a comment may cite.",
    "",
    "[Back](../README.md#demo)",
  ].join("\n"),
  "lib/code.ts": [
    `/** Resolves: ${GUIDE}, "Errors"; ${GUIDE}#get-v1employeesid; ${GUIDE}, "When the server stops answering". */`,
    `// Resolves too: ${GUIDE} "Limits and quotas".`,
    `// Dead: ${DOCS}/gone.md, and ${GUIDE}, "Paging", and ${GUIDE}#paging.`,
    `const notAComment = "${DOCS}/not-checked.md";`,
  ].join("\n"),
  "package.json": JSON.stringify({ devDependencies: { kysely: "1" } }),
  [`lib/paths${TS}`]: [
    `/** Resolves: lib/code${TS}, code${TS} beside it, README${MD} at the root, ./code${TS}, ../lib/code${TS}. */`,
    `// Dead: lib/moved${TS}, \`moved${TS}\`, ./moved${TS}, and STYLE${MD}.`,
    `// Ends a sentence: lib/code${TS}. Quoted as code, not cited: 'lib/gone${TS}'.`,
    `// Not the repository's: ../shared/STYLE${MD}, ../../elsewhere/a${TS}, kysely/dist/index.d${TS},`,
    `// node_modules/x/y${TS}, dist/lib/index.d${TS}, /usr/share/x/run.sh, ~/notes${MD}, @scope/pkg/c${TS},`,
    `// https://example.com/a/b${MD}, Node.js, *.test${TS}, .d${TS}, entry/<name>${TS}, import("./gone${TS}").`,
    `const notAComment = "lib/nowhere${TS}";`,
  ].join("\n"),
};

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "check-links-"));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("findDeadLinks", () => {
  test("names every dead link, dead anchor, dead citation and missing path in a comment, and nothing else", () => {
    const found = findDeadLinks(root).map((d) => `${d.file}:${d.line}: ${d.target}: ${d.problem}`);
    expect(found).toEqual([
      `README.md:7: ${DOCS}/missing.md: no such file or directory`,
      `README.md:7: ${GUIDE}#no-such-heading: no heading with the anchor #no-such-heading in ${GUIDE}`,
      "README.md:8: ../shared/spec.md: points outside the repository",
      `README.md:15: ${DOCS}/also-missing.md: no such file or directory`,
      `README.md:17: lib/renamed${TS}: no such file in the repository`,
      `lib/code.ts:3: ${DOCS}/gone.md: no such file or directory`,
      `lib/code.ts:3: ${GUIDE}, "Paging": no heading or bold lead-in "Paging" in ${GUIDE}`,
      `lib/code.ts:3: ${GUIDE}#paging: no heading with the anchor #paging in ${GUIDE}`,
      `lib/paths.ts:2: lib/moved${TS}: no such file from the root or from lib/`,
      `lib/paths.ts:2: moved${TS}: no such file from the root or from lib/`,
      `lib/paths.ts:2: ./moved${TS}: no such file beside lib/`,
      `lib/paths.ts:2: STYLE${MD}: no such file from the root or from lib/`,
    ]);
  });

  test("a repository whose links all resolve has none", () => {
    const clean = mkdtempSync(join(tmpdir(), "check-links-clean-"));
    try {
      mkdirSync(join(clean, DOCS));
      writeFileSync(join(clean, "README.md"), `# Top\n\n[guide](${GUIDE}#errors)\n`);
      writeFileSync(join(clean, GUIDE), "# Guide\n\n## Errors\n\n[top](../README.md#top)\n");
      expect(findDeadLinks(clean)).toEqual([]);
    } finally {
      rmSync(clean, { recursive: true, force: true });
    }
  });
});

test("slugs follow GitHub's rules", () => {
  expect(slug("Paging, ordering and cursors")).toBe("paging-ordering-and-cursors");
  expect(slug("4. TLS: directly, or behind a reverse proxy")).toBe("4-tls-directly-or-behind-a-reverse-proxy");
  expect(slug("GET /v1/employees/{id}")).toBe("get-v1employeesid");
  expect(slug("Walk-through: a Store over a host's own schema")).toBe("walk-through-a-store-over-a-hosts-own-schema");
  expect(slug("sweep_rate_events")).toBe("sweep_rate_events");
});

test("the command exits 1 and names each dead link on stderr", () => {
  const run = Bun.spawnSync([process.execPath, join(import.meta.dir, "../scripts/check-links.ts"), root]);
  expect(run.exitCode).toBe(1);
  const stderr = run.stderr.toString();
  expect(stderr).toContain(`README.md:7: ${DOCS}/missing.md: no such file or directory`);
  expect(stderr).toContain(`lib/code.ts:3: ${GUIDE}, "Paging"`);
  expect(stderr).toContain(`lib/paths.ts:2: lib/moved${TS}: no such file`);
});
