/**
 * The shell blocks a document marks `<!-- runnable -->` (or `<!-- runnable: serves -->` for
 * a server that keeps running, or `<!-- runnable: NAME -->` for one of several ways of
 * doing the same step, such as docs/install.md's `runuser` and `sudo` shorthands, run
 * only when NAME is asked for), and one bash script that runs them in order: what
 * test/readme.e2e.test.ts runs of the README in a fresh clone, and test/release.e2e.test.ts
 * of docs/install.md's first-time set-up after installing the Debian package.
 */

/** The port the README's server listens on, which a `serves` block is waited for on. */
export const README_PORT = 8080;

export interface RunnableBlock {
  /** The line of the block's opening fence in its file, for messages. */
  line: number;
  serves: boolean;
  /** The way of doing the step it is one of (`<!-- runnable: NAME -->`), if any. */
  variant?: string;
  text: string;
}

/**
 * The shell blocks of a Markdown text marked runnable, with those of `variant` among the
 * ways of doing a step (none by default); a marker not followed by a sh block is an error.
 */
export function runnableBlocks(markdown: string, variant?: string): RunnableBlock[] {
  const lines = markdown.split("\n");
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- runnable(?:: ([a-z]+))? -->$/.exec(lines[i] ?? "");
    if (!marker) continue;
    if (lines[i + 1] !== "```sh") throw new Error(`line ${i + 1}: a runnable marker must stand right above a \`\`\`sh block`);
    const body: string[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j] !== "```"; j++) body.push(lines[j] ?? "");
    if (j === lines.length) throw new Error(`line ${i + 2}: the runnable block never closes`);
    const name = marker[1];
    const line = i + 2;
    i = j;
    if (name === undefined || name === "serves") blocks.push({ line, serves: name === "serves", text: body.join("\n") });
    else if (name === variant) blocks.push({ line, serves: false, variant: name, text: body.join("\n") });
  }
  return blocks;
}

/** Waits (bounded) until something answers HTTP on the port, then exits 0; exits 1 after 60 s. */
const WAIT_FOR_SERVER = `
const deadline = Date.now() + 60_000;
for (;;) {
  try { await fetch("http://127.0.0.1:${README_PORT}/livez"); process.exit(0); } catch {}
  if (Date.now() > deadline) { console.error("nothing answered on port ${README_PORT} within 60 s"); process.exit(1); }
  await new Promise((r) => setTimeout(r, 100));
}`;

/** One bash script that runs the blocks in order and stops every server it started when it ends. */
export function scriptFor(blocks: RunnableBlock[], file: string, prelude: string[] = []): string {
  const parts = [
    "set -euo pipefail",
    ...prelude,
    // Background jobs in process groups of their own, so that stopping one stops npx, the launcher and Bun.
    "set -m",
    "SERVERS=()",
    `trap 'for p in "\${SERVERS[@]}"; do kill -TERM -- -"$p" 2>/dev/null || true; done; wait' EXIT`,
  ];
  for (const block of blocks) {
    parts.push(`echo "::: ${file}:${block.line}"`);
    if (block.serves) {
      parts.push(`( ${block.text}\n) > "server-${block.line}.log" 2>&1 &`, `SERVERS+=($!)`);
      parts.push(`node --input-type=module -e '${WAIT_FOR_SERVER}' || { cat "server-${block.line}.log"; exit 1; }`);
    } else {
      parts.push(block.text);
    }
  }
  parts.push(`echo "::: done"`);
  return `${parts.join("\n")}\n`;
}
