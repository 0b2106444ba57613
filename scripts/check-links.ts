/**
 * Fails when the repository points at something it does not have: a relative link in a
 * Markdown file whose file or heading is missing, a `docs/….md` that a code comment cites
 * (with its `#anchor` or its `, "Section"`) and that does not exist, or any other file path
 * a code comment names that is missing (scripts/checks/comment-paths.ts says which tokens
 * are paths). A clone, and the npm package, must document themselves without reaching
 * outside (issue 13), and a rename must take its comments along (issue 28).
 *
 *   bun scripts/check-links.ts [ROOT]      ROOT defaults to the repository
 *
 * Anchors follow GitHub's rules: the heading's text, lower-cased, with everything but
 * letters, digits, spaces, `-` and `_` dropped and each space made a `-`; a repeated
 * heading gets `-1`, `-2`, …. A cited "Section" may also be a paragraph's bold lead-in
 * (`**When the server stops answering.**`). Links with a scheme (`https:`, `mailto:`)
 * are not followed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { deadCommentPaths, SKIPPED_DIRS } from "./checks/comment-paths.ts";

export interface DeadLink {
  /** The file that holds the link, relative to the root. */
  file: string;
  line: number;
  target: string;
  problem: string;
}

const CODE_EXTENSIONS = new Set([".ts", ".js", ".mjs", ".cjs"]);
/** Files whose comments start with `#`. */
const HASH_COMMENT_EXTENSIONS = new Set([".sh", ".yaml", ".yml", ".service", ".example", ".env", ".toml"]);

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    const info = statSync(path, { throwIfNoEntry: false });
    if (info?.isDirectory()) yield* walk(path);
    else if (info?.isFile()) yield path;
  }
}

/** GitHub's anchor for a heading's rendered text (github-slugger, without the repeat suffix). */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** A heading's text as GitHub renders it: inline code kept, links reduced to their text, emphasis and tags dropped. */
function renderedText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") && part.endsWith("`") ? part.slice(1, -1) : part.replace(/\*+/g, "")))
    .join("")
    .trim();
}

/** The lines of a Markdown file outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((line, i) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === null) fence = marker[0]!.repeat(marker.length);
      else if (marker.startsWith(fence)) fence = null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text: line });
  });
  return out;
}

interface Targets {
  /** Every anchor a link may use: headings (with repeat suffixes) and explicit ids. */
  anchors: Set<string>;
  /** Slugs of what a comment may cite as "Section": headings and bold lead-ins. */
  sections: Set<string>;
}

const targetsCache = new Map<string, Targets>();

function targetsOf(markdownFile: string): Targets {
  let targets = targetsCache.get(markdownFile);
  if (targets) return targets;
  const anchors = new Set<string>();
  const sections = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(readFileSync(markdownFile, "utf8"))) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading !== undefined) {
      const base = slug(renderedText(heading));
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
      sections.add(base);
      // A section cited as "Postgres instead of SQLite" is the heading "9. Postgres instead of SQLite".
      sections.add(slug(renderedText(heading.replace(/^\d+(\.\d+)*\.?\s+/, ""))));
    }
    for (const m of text.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/g)) anchors.add(m[1]!);
    for (const m of text.matchAll(/\*\*([^*]+?)[.:]?\*\*/g)) sections.add(slug(renderedText(m[1]!)));
  }
  targets = { anchors, sections };
  targetsCache.set(markdownFile, targets);
  return targets;
}

/** Text with inline code spans blanked out (same length, so columns stay put). */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)(.+?)\1/g, (span) => " ".repeat(span.length));
}

/** The problem with a link target from `fromFile`, or `null` when it resolves. */
function checkTarget(root: string, fromFile: string, target: string): string | null {
  const hash = target.indexOf("#");
  const rawPath = hash === -1 ? target : target.slice(0, hash);
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return "not a valid URL path";
  }
  const file = path === "" ? fromFile : path.startsWith("/") ? join(root, path) : resolve(dirname(fromFile), path);
  if (!resolve(file).startsWith(resolve(root) + sep) && resolve(file) !== resolve(root)) return "points outside the repository";
  if (!existsSync(file)) return "no such file or directory";
  if (anchor !== null && anchor !== "" && extname(file).toLowerCase() === ".md" && statSync(file).isFile()) {
    if (!targetsOf(file).anchors.has(anchor)) return `no heading with the anchor #${anchor} in ${relative(root, file)}`;
  }
  return null;
}

const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function linksOfMarkdown(root: string, file: string): DeadLink[] {
  const dead: DeadLink[] = [];
  for (const { line, text } of proseLines(readFileSync(file, "utf8"))) {
    const prose = withoutCodeSpans(text);
    const targets = [...prose.matchAll(INLINE_LINK)].map((m) => m[1]!);
    const definition = REFERENCE_DEFINITION.exec(prose)?.[1];
    if (definition !== undefined) targets.push(definition);
    for (const target of targets) {
      if (HAS_SCHEME.test(target) || target.startsWith("//")) continue;
      const problem = checkTarget(root, file, target);
      if (problem !== null) dead.push({ file: relative(root, file), line, target, problem });
    }
    // A repository file named in a code span (`lib/records.ts`) is a reference too: a
    // rename must take it along. Only paths under the repository's own folders count, so
    // an example file a command is given (a map, an export) is not one.
    for (const span of text.matchAll(/(`+)(.+?)\1/g)) {
      for (const m of span[2]!.matchAll(REPOSITORY_PATH)) {
        if (!existsSync(join(root, m[1]!))) dead.push({ file: relative(root, file), line, target: m[1]!, problem: "no such file in the repository" });
      }
    }
  }
  return dead;
}

/** A path under one of the repository's own folders, with a file's extension. */
const REPOSITORY_PATH =
  /(?<![\w./-])((?:lib|server|adapters|scripts|test|testing|client|entry|bench|examples|deploy|bin)\/[\w./-]*\.(?:ts|mjs|md|json|sh))(?![\w/-])/g;

/** The comment text of a source line, or `null` when it has none (a `//` inside a string may slip in: harmless here). */
function commentOf(line: string, extension: string): string | null {
  if (HASH_COMMENT_EXTENSIONS.has(extension)) {
    const at = line.indexOf("#");
    return at === -1 ? null : line.slice(at);
  }
  if (/^\s*(\*|\/\*|\/\/)/.test(line)) return line;
  const at = line.indexOf("//");
  return at === -1 ? null : line.slice(at);
}

/** A page under docs/ (`docs/….md`), alone, with `#anchor`, or followed by `, "Section"` or ` "Section"`. */
const DOC_CITATION = /(?<![\w./-])(docs\/[\w./-]*\.md)(#[\w-]+)?(?:,?\s+"([^"]+)")?/g;

function citationsOfCode(root: string, file: string): DeadLink[] {
  const dead: DeadLink[] = [];
  const extension = extname(file).toLowerCase();
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, i) => {
      const comment = commentOf(text, extension);
      if (comment === null) return;
      for (const m of comment.matchAll(DOC_CITATION)) {
        const [cited, path, anchor, section] = m as unknown as [string, string, string | undefined, string | undefined];
        const where = { file: relative(root, file), line: i + 1, target: cited.trim() };
        const problem = checkTarget(root, join(root, "citation"), path + (anchor ?? ""));
        if (problem !== null) {
          dead.push({ ...where, problem });
        } else if (section !== undefined && !targetsOf(join(root, path)).sections.has(slug(section))) {
          dead.push({ ...where, problem: `no heading or bold lead-in "${section}" in ${path}` });
        }
      }
      if (!CODE_EXTENSIONS.has(extension)) return;
      for (const { target, problem } of deadCommentPaths(root, file, comment)) {
        dead.push({ file: relative(root, file), line: i + 1, target, problem });
      }
    });
  return dead;
}

/** Every dead link and citation under `root`, in file order. */
export function findDeadLinks(root: string): DeadLink[] {
  targetsCache.clear();
  const dead: DeadLink[] = [];
  for (const file of walk(root)) {
    const extension = extname(file).toLowerCase();
    if (extension === ".md") dead.push(...linksOfMarkdown(root, file));
    else if (CODE_EXTENSIONS.has(extension) || HASH_COMMENT_EXTENSIONS.has(extension)) dead.push(...citationsOfCode(root, file));
  }
  return dead;
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, ".."));
  const dead = findDeadLinks(root);
  if (dead.length > 0) {
    console.error(`links: ${dead.length} dead link(s) or citation(s); the repository must point only at what it has:`);
    for (const d of dead) console.error(`${d.file}:${d.line}: ${d.target}: ${d.problem}`);
    process.exit(1);
  }
  console.log("links: every relative link in the Markdown files and every file path or docs/ citation in comments resolves");
}
