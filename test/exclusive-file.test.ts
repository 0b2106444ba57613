/**
 * How `leaveapi fetch` writes its output and state (scripts/fetch/exclusive-file.ts): never
 * through a link planted in a shared directory, under a name nobody can guess, with the
 * target's mode or 0600.
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPartial } from "../scripts/fetch/exclusive-file.ts";

const dir = mkdtempSync(join(tmpdir(), "leaveapi-exclusive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function writeThrough(path: string, text: string): Promise<void> {
  const partial = await openPartial(path);
  await partial.handle.writeFile(text);
  await partial.handle.close();
  await partial.commit();
}

test("a symlink planted at the output is replaced by the file, and what it pointed to is left alone", async () => {
  const victim = join(dir, "victim.txt");
  writeFileSync(victim, "precious");
  const output = join(dir, "planted.jsonl");
  symlinkSync(victim, output);
  await writeThrough(output, "HR data\n");
  expect(readFileSync(victim, "utf8")).toBe("precious");
  expect(lstatSync(output).isSymbolicLink()).toBe(false);
  expect(readFileSync(output, "utf8")).toBe("HR data\n");
  expect(statSync(output).mode & 0o777).toBe(0o600);
});

test("an output kept private stays private; one that is shared keeps its mode; a new one is 0600 whatever the umask", async () => {
  const kept = join(dir, "private.jsonl");
  writeFileSync(kept, "old");
  chmodSync(kept, 0o600);
  await writeThrough(kept, "new");
  expect(statSync(kept).mode & 0o777).toBe(0o600);
  const shared = join(dir, "shared.jsonl");
  writeFileSync(shared, "old");
  chmodSync(shared, 0o640);
  await writeThrough(shared, "new");
  expect(statSync(shared).mode & 0o777).toBe(0o640);
  const fresh = join(dir, "fresh.jsonl");
  await writeThrough(fresh, "new");
  expect(statSync(fresh).mode & 0o777).toBe(0o600);
});

test("the partial file's name cannot be guessed, and is never opened through an existing file or link", async () => {
  const target = join(dir, "guess.jsonl");
  const a = await openPartial(target);
  const b = await openPartial(target);
  const names = readdirSync(dir).filter((n) => n.startsWith("guess.jsonl.partial-"));
  expect(names).toHaveLength(2);
  for (const name of names) expect(name).toMatch(/^guess\.jsonl\.partial-[0-9a-f]{24}$/);
  expect(names[0]).not.toBe(names[1]);
  expect(names.some((n) => n.includes(String(process.pid)))).toBe(false);
  await a.discard();
  await b.discard();
  expect(readdirSync(dir).filter((n) => n.startsWith("guess.jsonl.partial-"))).toEqual([]);
});
