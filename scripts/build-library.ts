/**
 * The npm package's library build (part of `npm run build` and of `npm pack`): JavaScript
 * for Node, Bun and Deno and `.d.ts` declarations for every entry point in entry/, into
 * dist/lib.
 *
 * JavaScript: Bun's bundler for `--target node`, ESM, no source maps (the code is not
 * minified and its comments name the source files). The packages package.json lists as
 * `dependencies` and `peerDependencies` stay imports, which the consumer's install
 * provides; everything else the code uses is bundled in, only the parts it calls: the
 * date-holidays dataset and Scalar's page script. So a consumer installs
 * what the code runs and nothing it was built with (docs/install.md). One output per entry,
 * with the code they share in chunks: bundling each entry alone would give `leaveapi` and
 * `leaveapi/postgres` two copies of `StoreUnavailableError`, and the handler's
 * `instanceof` would no longer see a store's outage. The holiday thread is an entry of its
 * own, at dist/lib/adapters/holiday-thread.js (adapters/holiday-worker.ts finds it there).
 * Declarations: TypeScript 7's `tsc` emits them (tsconfig.lib.json); it keeps the
 * sources' `.ts` import specifiers, which are rewritten to the `.js` every TypeScript
 * version resolves to the `.d.ts` beside it.
 *
 * The build fails unless every entry but Bun-only `sqlite` loads in plain Node, and
 * unless no output names the machine's build folder.
 */
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { BunPlugin } from "bun";
import packageJson from "../package.json" with { type: "json" };

const ROOT = join(import.meta.dir, "..");
export const LIB_OUTDIR = join(ROOT, "dist/lib");

/** The package's entry points: entry/<name>.ts is `leaveapi/<name>` (`index` is `leaveapi`). */
export const LIBRARY_ENTRIES = ["index", "sqlite", "sqlite-node", "postgres", "node", "memory", "testing", "client"] as const;
/** `bun:sqlite` exists only on Bun (package.json's `bun` condition); elsewhere `leaveapi/sqlite` is sqlite-node. */
const BUN_ONLY_ENTRIES: readonly string[] = ["sqlite"];
/** Entry points that are not package exports: code run in a thread of its own. */
export const THREAD_ENTRIES = ["adapters/holiday-thread.ts"] as const;

/**
 * What stays an import in the output: the package's own dependencies (a bare name and its
 * subpaths) and the runtimes' built-in modules. Everything else is bundled.
 */
export function runtimeImports(): string[] {
  const names = [...Object.keys(packageJson.dependencies ?? {}), ...Object.keys((packageJson as { peerDependencies?: object }).peerDependencies ?? {})];
  return [...names.flatMap((name) => [name, `${name}/*`]), "bun:*", "node:*"];
}

async function run(what: string, argv: string[]): Promise<void> {
  const proc = Bun.spawn(argv, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${what} failed (exit ${code}):\n${out}${err}`);
}

export function* filesUnder(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/** `from "./x.ts"` and `import("../x.ts")` → `.js`; bare package specifiers are left alone. */
export function rewriteDeclarationSpecifiers(text: string): string {
  return text.replace(/((?:from\s+|import\s*\(\s*)(["']))(\.{1,2}\/[^"']*?)\.ts\2/g, "$1$3.js$2");
}

const TEXT_IMPORT = /\bfrom\s+["']([^"']+)["']\s+with\s*\{\s*type:\s*["']text["']\s*\}/g;
const textImportsOf = new Map<string, Set<string>>();

/**
 * `import x from "…" with { type: "text" }` is Bun's (the docs page embeds Scalar's bundle
 * that way); Node cannot load a file as text, and would run it as a module instead. So
 * those imports are inlined as strings, and every other package stays an import.
 */
const inlineTextImports: BunPlugin = {
  name: "inline text imports",
  setup(build) {
    build.onResolve({ filter: /^[^.]/ }, (args) => {
      let specifiers = textImportsOf.get(args.importer);
      if (!specifiers) {
        const source = existsSync(args.importer) ? readFileSync(args.importer, "utf8") : "";
        specifiers = new Set([...source.matchAll(TEXT_IMPORT)].map((m) => m[1]!));
        textImportsOf.set(args.importer, specifiers);
      }
      if (!specifiers.has(args.path)) return undefined;
      // Relative, so that the bundle's comment naming the file holds no path of this machine.
      return { path: relative(ROOT, Bun.resolveSync(args.path, args.importer)), namespace: "text-import" };
    });
    build.onLoad({ filter: /.*/, namespace: "text-import" }, async (args) => ({ contents: await Bun.file(join(ROOT, args.path)).text(), loader: "text" }));
  },
};

async function emitJavaScript(outdir: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: [...LIBRARY_ENTRIES.map((name) => join(ROOT, `entry/${name}.ts`)), ...THREAD_ENTRIES.map((path) => join(ROOT, path))],
    root: ROOT,
    outdir,
    target: "node",
    format: "esm",
    external: runtimeImports(),
    splitting: true,
    naming: { chunk: "chunks/[name]-[hash].[ext]" },
    plugins: [inlineTextImports],
    throw: false,
  });
  if (!result.success) throw new Error(`bun build (library) failed:\n${result.logs.map(String).join("\n")}`);
}

async function emitDeclarations(outdir: string): Promise<void> {
  await run("tsc (declarations)", [join(ROOT, "node_modules/.bin/tsc"), "-p", "tsconfig.lib.json", "--outDir", outdir]);
  for (const file of filesUnder(outdir)) {
    if (!file.endsWith(".d.ts")) continue;
    const text = readFileSync(file, "utf8");
    const rewritten = rewriteDeclarationSpecifiers(text);
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

/** Imports each Node-capable entry in a fresh `node` process and checks it exports something. */
async function checkLoadsInNode(outdir: string): Promise<void> {
  const urls = LIBRARY_ENTRIES.filter((name) => !BUN_ONLY_ENTRIES.includes(name)).map((name) => `file://${join(outdir, `entry/${name}.js`)}`);
  const script = `for (const url of ${JSON.stringify(urls)}) { const m = await import(url); if (Object.keys(m).length === 0) throw new Error(url + " exports nothing"); }`;
  await run("loading the library in Node", ["node", "--input-type=module", "-e", script]);
}

/**
 * Fails when a built file names the folder it was built in: a package must not carry the
 * builder's paths (they leak a machine's layout and make builds differ between machines).
 */
export function checkNoBuildPaths(outdir: string): void {
  const found = [...filesUnder(outdir)].filter((file) => readFileSync(file, "utf8").includes(ROOT));
  if (found.length > 0) throw new Error(`these built files name the build folder ${ROOT}: ${found.map((f) => relative(ROOT, f)).join(", ")}`);
}

/** Builds dist/lib from scratch; returns the entry files written, relative to the project. Throws on any failure. */
export async function buildLibrary(outdir: string = LIB_OUTDIR): Promise<string[]> {
  rmSync(outdir, { recursive: true, force: true });
  await emitJavaScript(outdir);
  await emitDeclarations(outdir);
  const entries = LIBRARY_ENTRIES.flatMap((name) => [`entry/${name}.js`, `entry/${name}.d.ts`].map((f) => join(outdir, f)));
  const missing = entries.filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`the library build did not write ${missing.join(", ")}`);
  checkNoBuildPaths(outdir);
  await checkLoadsInNode(outdir);
  return entries.map((file) => relative(ROOT, file));
}
