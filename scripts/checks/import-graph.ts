/**
 * The static import graph of the repository's own source: which file imports which, by relative
 * path. Every edge counts, `import type` included (a type import still means one file must change
 * when the other does), and so does a dynamic `import("./x.ts")` with a literal specifier.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const SPECIFIERS = [
  /\bfrom\s*["']([^"']+)["']/g, // import … from, export … from
  /\bimport\s*["']([^"']+)["']/g, // import "./side-effect.ts"
  /\bimport\(\s*["']([^"']+)["']\s*\)/g, // import("./x.ts")
];

/** The source without its comments, so a path quoted in a comment is not an edge. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .filter((line) => !/^\s*\/\//.test(line))
    .join("\n");
}

/** The repository files `file` imports by a relative specifier, as paths relative to `root`. */
export function importsOf(root: string, file: string): string[] {
  const found = new Set<string>();
  const source = code(readFileSync(join(root, file), "utf8"));
  for (const pattern of SPECIFIERS) {
    for (const match of source.matchAll(pattern)) {
      const specifier = match[1] ?? "";
      if (!specifier.startsWith(".")) continue;
      const target = join(dirname(join(root, file)), specifier);
      if (existsSync(target) && /\.(ts|mjs)$/.test(target)) found.add(relative(root, target));
    }
  }
  return [...found];
}

export type ImportGraph = Map<string, string[]>;

/** The graph over `files` (paths relative to `root`); edges to files outside the set are kept. */
export function importGraph(root: string, files: Iterable<string>): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of files) graph.set(file, importsOf(root, file));
  return graph;
}

/**
 * Every strongly connected component of more than one file (or a file importing itself), each as
 * one cycle through it: a path `a → b → … → a`. One cycle per knot is enough to name it; breaking
 * it and running again shows what is left.
 */
export function cycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  // Tarjan's algorithm, iterative so a deep chain of imports cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    while (work.length > 0) {
      const top = work[work.length - 1] as [string, number];
      const [node, edge] = top;
      if (edge === 0) {
        index.set(node, next);
        low.set(node, next);
        next++;
        stack.push(node);
        onStack.add(node);
      }
      const targets = graph.get(node) ?? [];
      if (edge < targets.length) {
        top[1] = edge + 1;
        const target = targets[edge] as string;
        if (!graph.has(target)) continue;
        if (!index.has(target)) work.push([target, 0]);
        else if (onStack.has(target)) low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent[0], Math.min(low.get(parent[0]) ?? 0, low.get(node) ?? 0));
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || targets.includes(node)) components.push(component);
      }
    }
  }
  return components.map((component) => cycleThrough(graph, new Set(component)));
}

/** A shortest cycle from the component's first file (by name) back to itself, within the component. */
function cycleThrough(graph: ImportGraph, component: Set<string>): string[] {
  const start = [...component].sort()[0] as string;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as string;
    for (const target of graph.get(node) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const back = [start, node];
        while (back[back.length - 1] !== start) back.push(previous.get(back[back.length - 1] as string) as string);
        return back.reverse();
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
