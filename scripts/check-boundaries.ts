/**
 * Fails when lib/ (or testing/, client/) depends on anything runtime-specific or on the layers above it
 * (STYLE.md: dependencies point one way, lib/ runs unchanged on Bun, Deno and Node).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "..");
const FORBIDDEN: [RegExp, string][] = [
  [/from\s+["'](bun:|node:)/, "imports a runtime module (bun:* or node:*)"],
  [/import\(\s*["'](bun:|node:)/, "imports a runtime module (bun:* or node:*)"],
  [/from\s+["'](\.\.\/)+(server|adapters|scripts)\//, "imports from a layer above lib/"],
  [/\bDeno\./, "uses the Deno global"],
  [/\bBun\./, "uses the Bun global"],
  [/\bprocess\.env\b/, "reads process.env"],
  [/\bBuffer\b/, "uses Buffer (use Uint8Array)"],
];

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith(".ts") && !path.endsWith(".test.ts")) yield path;
  }
}

const problems: string[] = [];
// testing/ ships as `leaveapi/testing` for host applications' own test runners, and client/
// as `leaveapi/client` for integrators on Node, Bun and Deno: both neutral too. So is the
// memory store (`leaveapi/memory`), which Deno serves and hosts read as a template.
const neutral = [...files(join(root, "lib")), ...files(join(root, "testing")), ...files(join(root, "client"))];
for (const file of [...neutral, join(root, "adapters/memory-store.ts")]) {
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      for (const [pattern, what] of FORBIDDEN) {
        if (pattern.test(line)) problems.push(`${relative(root, file)}:${i + 1}: ${what}: ${line.trim()}`);
      }
    });
}
if (problems.length > 0) {
  console.error(`lib/, testing/ and client/ must stay runtime-neutral and depend on nothing above lib/ (STYLE.md):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log("boundaries: lib/, testing/ and client/ import nothing runtime-specific or from server/, adapters/, scripts/");
