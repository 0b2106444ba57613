/**
 * Which test files reach a given function, through the helpers under test/ they import:
 * test-wiring.test.ts asks it which files open a switched store (`openTestStore`, also
 * reached through `createWorld` and `freshWorld`), which start a process and which reach
 * the Postgres server. It reads code, not text: each module is transpiled (comments, types
 * and unused imports gone), split into its top-level declarations, and a declaration
 * reaches the target when it names one that does, by import or within its module. Helpers
 * outside test/ are not followed: they are what the tests exercise, not how the tests are
 * wired.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { ROOT } from "./test-files.ts";

const TEST_DIR = join(ROOT, "test");

/** What counts as reaching: an export of a module (a path under the root, or a bare specifier), or code text. */
export interface Target {
  exported?: (module: string, name: string) => boolean;
  code?: RegExp;
  /** Exports not looked into: what they reach does not count (a switched store opens Postgres only when the run asks). */
  passedOver?: (module: string, name: string) => boolean;
}

interface Binding {
  /** Absolute path of a followed module, or the specifier of another one. */
  from: string;
  /** The imported name, or "*" for a namespace. */
  name: string;
}

interface Declaration {
  names: string[];
  text: string;
}

interface Module {
  imports: Map<string, Binding>;
  /** `export { a as b } from`: exported name → binding; `export * from` under "*". */
  reexports: Map<string, Binding[]>;
  declarations: Declaration[];
}

const LOADERS = { ts: "ts", tsx: "tsx", mts: "ts", cts: "ts", js: "js", jsx: "jsx", mjs: "js", cjs: "js" } as const;
const transpilers = new Map<string, Bun.Transpiler>();
const modules = new Map<string, Module>();

function transpile(path: string): string {
  const ext = (path.split(".").pop() ?? "ts") as keyof typeof LOADERS;
  const loader = LOADERS[ext] ?? "ts";
  let transpiler = transpilers.get(loader);
  if (!transpiler) {
    transpiler = new Bun.Transpiler({ loader, trimUnusedImports: true });
    transpilers.set(loader, transpiler);
  }
  return transpiler.transformSync(readFileSync(path, "utf8"));
}

function followed(path: string): boolean {
  return isAbsolute(path) && !relative(TEST_DIR, path).startsWith("..");
}

function resolveFrom(file: string, specifier: string): string {
  return specifier.startsWith(".") ? join(dirname(file), specifier) : specifier;
}

/** `{ a, b as c }` → [[a, a], [b, c]] (imported, local). */
function namedList(list: string): [string, string][] {
  return list
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const [imported, local] = part.split(/\s+as\s+/);
      return [imported!, local ?? imported!];
    });
}

function parse(path: string): Module {
  const code = transpile(path);
  const imports = new Map<string, Binding>();
  const reexports = new Map<string, Binding[]>();
  for (const [, clause, specifier] of code.matchAll(/^import\s+([^"';]+?)\s+from\s+"([^"]+)";?$/gm)) {
    const from = resolveFrom(path, specifier!);
    const named = /\{([^}]*)\}/.exec(clause!);
    if (named) for (const [imported, local] of namedList(named[1]!)) imports.set(local, { from, name: imported });
    const namespace = /\*\s+as\s+(\w+)/.exec(clause!);
    if (namespace) imports.set(namespace[1]!, { from, name: "*" });
    const byDefault = /^(\w+)/.exec(clause!);
    if (byDefault) imports.set(byDefault[1]!, { from, name: "default" });
  }
  for (const [, list, specifier] of code.matchAll(/^export\s+(\*|\{[^}]*\})\s+from\s+"([^"]+)";?$/gm)) {
    const from = resolveFrom(path, specifier!);
    const pairs: [string, string][] = list === "*" ? [["*", "*"]] : namedList(list!.slice(1, -1));
    for (const [imported, exported] of pairs) reexports.set(exported, [...(reexports.get(exported) ?? []), { from, name: imported }]);
  }
  // Bun prints every top-level statement from column 0 and indents what is inside one.
  const declarations: Declaration[] = [];
  for (const line of code.split("\n")) {
    if (/^[^\s})\]]/.test(line) || declarations.length === 0) declarations.push({ names: [], text: "" });
    const current = declarations[declarations.length - 1]!;
    current.text += `${line}\n`;
    const declared = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var)\s+(\w+)/.exec(line);
    if (declared) current.names.push(declared[1]!);
  }
  return { imports, reexports, declarations: declarations.filter((d) => !/^(import|export\s+(\*|\{[^}]*\})\s+from)\b/.test(d.text)) };
}

function moduleAt(path: string): Module {
  let module = modules.get(path);
  if (!module) {
    module = parse(path);
    modules.set(path, module);
  }
  return module;
}

/** Answers for one target, memoised; a question already being asked answers false (a cycle adds nothing). */
export function reachScanner(target: Target) {
  const exportAnswers = new Map<string, boolean>();
  const declarationAnswers = new Map<Declaration, boolean>();

  function exportReaches(from: string, name: string): boolean {
    if (target.passedOver?.(from, name)) return false;
    if (target.exported?.(from, name)) return true;
    if (!followed(from)) return false;
    const key = `${from}\0${name}`;
    const known = exportAnswers.get(key);
    if (known !== undefined) return known;
    exportAnswers.set(key, false);
    const module = moduleAt(from);
    const answer =
      (module.reexports.get(name) ?? []).some((b) => exportReaches(b.from, b.name)) ||
      (module.reexports.get("*") ?? []).some((b) => exportReaches(b.from, name)) ||
      module.declarations.some((d) => d.names.includes(name) && declarationReaches(module, d));
    exportAnswers.set(key, answer);
    return answer;
  }

  function declarationReaches(module: Module, declaration: Declaration): boolean {
    const known = declarationAnswers.get(declaration);
    if (known !== undefined) return known;
    declarationAnswers.set(declaration, false);
    const answer = target.code?.test(declaration.text) === true || namesReach(module, declaration);
    declarationAnswers.set(declaration, answer);
    return answer;
  }

  function namesReach(module: Module, declaration: Declaration): boolean {
    for (const [, name, member] of declaration.text.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?/g)) {
      const binding = module.imports.get(name!);
      if (binding) {
        if (binding.name !== "*" && exportReaches(binding.from, binding.name)) return true;
        if (binding.name === "*" && member !== undefined && exportReaches(binding.from, member)) return true;
        if (binding.name === "*" && target.exported?.(binding.from, "*")) return true;
        continue;
      }
      const local = module.declarations.find((d) => d !== declaration && d.names.includes(name!));
      if (local && declarationReaches(module, local)) return true;
    }
    return false;
  }

  return {
    /** Whether any top-level code of the file (absolute path) reaches the target. */
    file(path: string): boolean {
      const module = moduleAt(path);
      return module.declarations.some((d) => declarationReaches(module, d));
    },
    /** Whether an export of a module (absolute path) reaches the target. */
    export: exportReaches,
  };
}
