/**
 * Summarises a `.cpuprofile` (from `bun --cpu-prof`): the functions with the most self
 * time and the most total time, so a profile can be read in a terminal.
 *
 *   bun bench/profile-summary.ts FILE.cpuprofile [--top 25]
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const [file] = process.argv.slice(2);
const topIndex = process.argv.indexOf("--top");
const top = topIndex === -1 ? 25 : Number(process.argv[topIndex + 1]);
const profile = (await Bun.file(file!).json()) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: Node) => {
  const where = n.callFrame.url.replace(/^.*\/(node_modules\/)?/, "");
  return `${n.callFrame.functionName || "(anonymous)"} ${where}:${n.callFrame.lineNumber + 1}`;
};
const self = new Map<string, number>();
const total = new Map<string, number>();
let all = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  all += dt;
  const node = byId.get(id)!;
  self.set(label(node), (self.get(label(node)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const l = label(byId.get(at)!);
    if (seen.has(l)) continue;
    seen.add(l);
    total.set(l, (total.get(l) ?? 0) + dt);
  }
});
const show = (title: string, m: Map<string, number>) => {
  console.log(`${title} (of ${(all / 1000).toFixed(0)} ms sampled)`);
  for (const [l, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * t) / all).toFixed(1).padStart(5)}%  ${l}`);
  }
};
show("self time", self);
show("total time", total);
export {};
