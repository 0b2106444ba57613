/**
 * Fails when dependencies stop pointing one way (ARCHITECTURE.md, "The folders, and which
 * way imports point"), so that each layer can be read, tested and changed without the ones
 * above it, and when a source file grows past what can be read at one sitting. The rules
 * are scripts/checks/boundaries.ts's; test/check-boundaries.test.ts breaks each one.
 * - lib/ (and testing/, client/, the memory store) depends on anything runtime-specific,
 *   or lib/ imports anything but lib/, client/ anything but client/ and lib/, testing/
 *   anything but testing/ and lib/: lib/ runs unchanged on Bun, Deno and Node, and
 *   client/ and testing/ ship as `leaveapi/client` and `leaveapi/testing` for any host;
 * - anything but a test imports from testing/ (production code, examples/, bench/; a test
 *   is under test/ or named *.test.ts): that is `leaveapi/testing`, for test runners, and
 *   only its own entry point, entry/testing.ts, exports it. What production code and the
 *   contracts share lives in lib/ (lib/store-contents.ts);
 * - server/ imports a store implementation (adapters/, `leaveapi/sqlite` and the like, a
 *   database driver): it maps HTTP to lib/'s operations over the Store interface, and
 *   which store serves them is the host's choice, passed to createHandler;
 * - a file of adapters/ has no role (ADAPTER_ROLES: store, runtime part, host), a store
 *   imports server/, a host, scripts/ or client/, or a runtime part imports anything but
 *   lib/ and runtime parts: a store (the openers adapters/bun/sqlite.ts,
 *   adapters/node/sqlite.ts, adapters/postgres.ts among them) runs under any host, and a
 *   runtime part (adapters/node-crypto.ts) is what both stores and hosts may be given;
 * - adapters/sql/ imports a runtime module or anything but itself and lib/: the one SQL
 *   store runs on Bun, Node and Deno, and what is native to a runtime (a driver, a faster
 *   digest) is passed in by the opener;
 * - any file takes part in an import cycle (scripts/checks/import-graph.ts), bench/
 *   included: files in a cycle can only be understood, loaded and tested together, so the
 *   shared piece belongs in a module below both. `import type` counts: it couples the
 *   files all the same;
 * - anything but the dispatcher, scripts/cli.ts, imports a command of scripts/commands/:
 *   commands are the top of the command line, built from scripts/serve/, scripts/import/
 *   and the rest, never the other way round;
 * - the serve command's thread statically imports the holiday dataset;
 * - a source file (not a test; bench/ included) is over 400 lines: split it where its
 *   parts meet.
 */
import { join } from "node:path";
import { boundaryProblems, DISPATCHER, MAX_LINES } from "./checks/boundaries.ts";

const problems = boundaryProblems(join(import.meta.dir, ".."));
if (problems.length > 0) {
  console.error(`Dependencies must point one way, without cycles, in files of at most ${MAX_LINES} lines:\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(
  "boundaries: lib/, testing/, client/ and the memory store import nothing runtime-specific, and lib/ only lib/, client/ and testing/ only themselves and lib/; " +
    "server/ imports no store implementation; every file of adapters/ is a store, a runtime part or a host, and stores import no host, server/, scripts/ or client/, runtime parts only lib/ and runtime parts; " +
    "adapters/sql/ only itself and lib/; nothing but tests and entry/testing.ts imports testing/; " +
    `no import cycles; only ${DISPATCHER} imports scripts/commands/; the serve thread loads no holiday dataset; no source file (bench/ included) over ${MAX_LINES} lines`,
);
