/**
 * The file paths a code comment names, and whether the repository has them: a comment that
 * cites `adapters/node/client-error.ts` sends a newcomer there, so a rename or a deletion
 * must take the comment along (issue 28). scripts/check-links.ts runs this on every comment
 * line of every source file (.ts, .js, .mjs, .cjs).
 *
 * What counts as a path, so that other projects' paths and made-up names do not fail:
 * - a token that ends in an extension the repository's own files use (KNOWN_EXTENSIONS;
 *   not `.js`, which here is only build output or a package's file, nor `Node.js`), whose
 *   name starts with a letter, digit or `_` (so `.d.ts` and `*.test.ts` are kinds of file,
 *   not files), and that is not glued to a URL, an absolute path (`/usr/…`, `~/…`), a
 *   scope (`@scalar/…`), a glob (`*`) or a placeholder (`entry/<name>.ts`);
 * - outside a string: a token wrapped in quotes (`import("./x.ts")`) is example code;
 * - not under a folder that is not in a clone (node_modules/, dist/, …: SKIPPED_DIRS), not a
 *   package's path (its first segment a dependency in package.json), not `../shared/…`
 *   (the project's folder beside the repository: spec, decisions, style guide), and not a
 *   `./` or `../` path that leaves the repository;
 * - not a `docs/….md`, which scripts/check-links.ts checks with its anchor or section.
 * Such a path must exist, read from the repository's root or from the commenting file's
 * folder (`<folder>/<name>.ts` beside the file); a `./` or `../` path from the file's folder
 * only. A bare `<name>.ts` is read the same way, so a comment names a file elsewhere by its
 * path from the root (`adapters/sql/fast-paths.ts`), never by a name that only a search
 * finds. The project's style guide, decisions record and API spec live beside the
 * repository, not in it: a comment quotes their rule or cites them in words.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";

/** What a comment's path is, and why it fails. */
export interface PathProblem {
  target: string;
  problem: string;
}

const KNOWN_EXTENSIONS = ["ts", "mts", "cts", "mjs", "cjs", "md", "json", "sh", "yaml", "yml", "toml", "txt", "service"];

/** Folders a clone does not have (installed, built or scratch): never checked, never walked. */
export const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git", ".tmp", "coverage"]);

const PATH_TOKEN = new RegExp(String.raw`(?<![\w./@:~$<>*\\-])((?:\.\.?/)*\w[\w.-]*(?:/[\w.-]+)*\.(?:${KNOWN_EXTENSIONS.join("|")}))(?![\w/*>-]|\.\w)`, "g");

const dependencyCache = new Map<string, Set<string>>();

/** The package names package.json depends on: `kysely/…` in a comment is that package's. */
function dependenciesOf(root: string): Set<string> {
  let names = dependencyCache.get(root);
  if (names) return names;
  names = new Set();
  const manifest = join(root, "package.json");
  if (existsSync(manifest)) {
    const json = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, Record<string, string> | undefined>;
    for (const field of ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"]) {
      for (const name of Object.keys(json[field] ?? {})) names.add(name);
    }
  }
  dependencyCache.set(root, names);
  return names;
}

function inside(root: string, path: string): boolean {
  return resolve(path).startsWith(resolve(root) + sep);
}

/** Why `token`, named in a comment of `file`, fails, or `null` when it exists or is not the repository's. */
function problemOf(root: string, file: string, token: string): string | null {
  const folder = dirname(file);
  if (token.startsWith("../shared/")) return null;
  if (token.startsWith("./") || token.startsWith("../")) {
    const path = join(folder, token);
    if (!inside(root, path)) return null;
    return existsSync(path) ? null : `no such file beside ${relativeFolder(root, folder)}`;
  }
  const first = token.split("/")[0]!;
  if (token.includes("/") && (SKIPPED_DIRS.has(first) || dependenciesOf(root).has(first))) return null;
  if (token.startsWith("docs/") && token.endsWith(".md")) return null;
  if (existsSync(join(root, token)) || existsSync(join(folder, token))) return null;
  return `no such file from the root or from ${relativeFolder(root, folder)}`;
}

function relativeFolder(root: string, folder: string): string {
  const path = resolve(folder).slice(resolve(root).length + 1);
  return path === "" ? "the root" : `${path}/`;
}

/** The paths in one comment's text that the repository does not have. */
export function deadCommentPaths(root: string, file: string, comment: string): PathProblem[] {
  const dead: PathProblem[] = [];
  for (const m of comment.matchAll(PATH_TOKEN)) {
    const token = m[1]!;
    const before = comment[m.index - 1];
    const after = comment[m.index + token.length];
    if ((before === '"' || before === "'") && after === before) continue;
    const problem = problemOf(root, file, token);
    if (problem !== null) dead.push({ target: token, problem });
  }
  return dead;
}
