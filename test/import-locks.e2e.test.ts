/**
 * Who waits for whom while imports run (issue 35; docs/cli.md, "Errors and
 * transactions"), through the real command line. Each import here reads its file from stdin,
 * fed by the test in two halves: once the first half is taken (all but what the socket buffers), the
 * import is under way, and it cannot end before the test sends the rest. So what runs
 * meanwhile runs while the import is half done, with no sleep or timing guess.
 *
 * - A dry run takes no write lock: another organisation's import and a revocation finish
 *   while it is half done, and the SQLite write-ahead log does not grow by a byte for it.
 * - An import takes the write lock at its first write: what it reads before holds up nobody.
 * - On SQLite one import waits for another (of any organisation), and an erasure for an
 *   import, each with one line on stderr, never a timeout; both land.
 * - On Postgres a second import of the same organisation, and an erasure in it, wait with
 *   that line, past the statement timeout, and land; a dry run holds up no import of its
 *   organisation.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, runCli, runJson, scratchDir } from "./cli-harness.ts";
import { scratchDatabases } from "./pg-scratch.ts";

setDefaultTimeout(180_000);

const scratch = scratchDir();
afterAll(() => scratch.dispose());
const newDatabase = scratchDatabases("import locks");

/** How long a step that must not wait on a lock is given before the test calls it stuck: far more than it takes, far less than the test. */
const STUCK_MS = 30_000;

/**
 * What a fed import is sent before anything else runs: far more than the socket between the
 * processes buffers (a few hundred KiB), so that once it is taken the import is reading rows.
 */
const FIRST_HALF_BYTES = 2 * 1024 * 1024;

/** JSONL employees; `padding` spaces inside each record (JSON whitespace) make few rows a large file. */
function employeesText(count: number, prefix = "E", padding = 0): string {
  const lines: string[] = [];
  for (let n = 0; n < count; n++) {
    const record = JSON.stringify({ external_id: `${prefix}${n}`, first_name: `First${n}`, last_name: `Last${n}`, status: "active" });
    lines.push(`${record.slice(0, -1)}${" ".repeat(padding)}}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `count` employees as JSONL whose first half (split at a line) is over FIRST_HALF_BYTES: [first half, rest]. */
function halves(count: number): [string, string] {
  const padding = Math.max(0, Math.ceil((4 * FIRST_HALF_BYTES) / count) - 80);
  const text = employeesText(count, "E", padding);
  const half = text.indexOf("\n", text.length / 2) + 1;
  if (half < FIRST_HALF_BYTES) throw new Error(`the first half is ${half} bytes; it must be over ${FIRST_HALF_BYTES}`);
  return [text.slice(0, half), text.slice(half)];
}

/** A `leaveapi` process whose stdin the test feeds, with its output collected as it comes. */
function startFed(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([...CLI, ...args], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "", ...env },
  });
  let stdout = "";
  let stderr = "";
  let closed = false;
  const collect = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  };
  const output = Promise.all([collect(proc.stdout, (t) => (stdout += t)), collect(proc.stderr, (t) => (stderr += t))]);
  return {
    /** Resolves once the process has taken all but a pipe's buffer of `text`. */
    async feed(text: string): Promise<void> {
      proc.stdin.write(text);
      await proc.stdin.flush();
    },
    /** Sends the rest of stdin, closes it, and resolves with how the process ended. */
    async finish(text = ""): Promise<{ code: number; stdout: string; stderr: string }> {
      if (!closed) {
        closed = true;
        proc.stdin.write(text);
        await proc.stdin.end();
      }
      const code = await proc.exited;
      await output;
      return { code, stdout, stderr };
    },
    /** Sends the whole of stdin and closes it, without waiting for the process. */
    async close(text: string): Promise<void> {
      closed = true;
      proc.stdin.write(text);
      await proc.stdin.end();
    },
    stderr: () => stderr,
    kill: () => proc.kill(),
  };
}

/** Whether `work` settles within `ms`; the stuck case is the failure the caller reports. */
async function within<T>(ms: number, work: Promise<T>): Promise<{ done: true; value: T } | { done: false }> {
  let timer: Timer | undefined;
  const limit = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a command that must not wait on any lock: it ends within STUCK_MS, exits 0 and says nothing on stderr. Its stdout. */
async function runsUnhindered(args: string[], env: Record<string, string> = {}): Promise<string> {
  const run = await within(STUCK_MS, runCli(args, { env }));
  if (!run.done) throw new Error(`leaveapi ${args.join(" ")} was still waiting after ${STUCK_MS} ms`);
  expect(run.value.stderr).toBe("");
  expect(run.value.code).toBe(0);
  return run.value.stdout;
}

/** Resolves once the process's stderr matches `pattern`, or fails after STUCK_MS with what it said. */
async function saysOnStderr(fed: ReturnType<typeof startFed>, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + STUCK_MS;
  while (!pattern.test(fed.stderr())) {
    if (Date.now() > deadline) throw new Error(`stderr never matched ${pattern}; it said: ${fed.stderr() || "(nothing)"}`);
    await Bun.sleep(50);
  }
}

async function setUp(global: string[]) {
  const a = await runJson<{ id: string }>([...global, "org", "create", "--name", "Night shift"]);
  const b = await runJson<{ id: string }>([...global, "org", "create", "--name", "Day shift"]);
  const client = await runJson<{ client_id: string }>([...global, "credentials", "create", "--org", b.id]);
  return { a: a.id, b: b.id, clientId: client.client_id };
}

const walSize = (file: string) => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

describe("SQLite", () => {
  test("a dry run of 300,000 rows holds no lock: another organisation's import and a revocation finish meanwhile, and the log does not grow", async () => {
    const file = join(scratch.dir, "dry.sqlite");
    const global = ["--db", file];
    const { a, b, clientId } = await setUp(global);
    const other = join(scratch.dir, "other.jsonl");
    writeFileSync(other, employeesText(2000, "D"));
    // Kept open, so that no process ending checkpoints the log away while it is measured.
    const watcher = new Database(file, { readonly: true });
    watcher.query("select count(*) from employees").get();
    const dry = startFed([...global, "import", "--org", a, "--kind", "employees", "--format", "jsonl", "--dry-run", "-"], {});
    try {
      const [firstHalf, rest] = halves(300_000);
      await dry.feed(firstHalf);

      expect(await runsUnhindered([...global, "import", "--org", b, "--kind", "employees", other])).toContain("2000 created");
      const started = performance.now();
      await runsUnhindered([...global, "credentials", "revoke", clientId]);
      expect(performance.now() - started).toBeLessThan(2000);

      const walBefore = walSize(file);
      const result = await dry.finish(rest);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("would import 300000 rows of employees into Night shift: 300000 created");
      // The log did not grow. (It may shrink: the dry run's process, closing the last
      // connection to the file, checkpoints and removes it, as SQLite does at any close.)
      expect(walSize(file)).toBeLessThanOrEqual(walBefore);
      // Nothing of it was written; the other organisation's import was.
      const counts = watcher.query("select organisation_id as org, count(*) as n from employees group by organisation_id").all();
      expect(counts).toEqual([{ org: b, n: 2000 }]);
    } finally {
      dry.kill();
      watcher.close();
    }
  });

  test("an import waits for another organisation's with one line on stderr, and an erasure likewise; all of them land", async () => {
    const file = join(scratch.dir, "two.sqlite");
    const global = ["--db", file];
    const { a, b } = await setUp(global);
    const other = join(scratch.dir, "other-two.jsonl");
    writeFileSync(other, employeesText(50, "D"));
    expect((await runCli([...global, "import", "--org", b, "--kind", "employees", other])).code).toBe(0);
    const first = startFed([...global, "import", "--org", a, "--kind", "employees", "--format", "jsonl", "-"], {});
    try {
      const [firstHalf, rest] = halves(20_000);
      await first.feed(firstHalf);
      const second = startFed([...global, "import", "--org", b, "--kind", "employees", "--format", "jsonl", "-"], {});
      const erase = startFed([...global, "erase", "--org", b, "--employee", "D7", "--yes"], {});
      await second.close(employeesText(3, "N"));
      // The holder announced itself in the tokens file, so the line names it.
      const waitLine =
        /^leaveapi: waiting for the import of employees into .+ \(process \d+, started [^)]+\) to finish before (importing|erasing [0-9a-f-]{36})…$/m;
      await saysOnStderr(second, waitLine);
      await saysOnStderr(erase, waitLine);

      const done = await first.finish(rest);
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      const [secondDone, eraseDone] = await Promise.all([second.finish(), erase.finish()]);
      expect(secondDone.code).toBe(0);
      expect(secondDone.stderr.match(/^leaveapi: /gm)).toHaveLength(1);
      expect(secondDone.stdout).toContain("3 created");
      expect(eraseDone.code).toBe(0);
      expect(eraseDone.stdout).toContain("erased");
      const db = new Database(file, { readonly: true });
      try {
        const counts = db.query("select organisation_id as org, count(*) as n from employees group by organisation_id order by n desc").all();
        expect(counts).toEqual([
          { org: a, n: 20_000 },
          { org: b, n: 52 },
        ]);
      } finally {
        db.close();
      }
    } finally {
      first.kill();
    }
  });
  test("an import takes the write lock for its writing only: while it reads a file of fewer rows than a batch, another organisation's import lands unhindered", async () => {
    const file = join(scratch.dir, "late.sqlite");
    const global = ["--db", file];
    const { a, b } = await setUp(global);
    const other = join(scratch.dir, "other-late.jsonl");
    writeFileSync(other, employeesText(10, "D"));
    const slow = startFed([...global, "import", "--org", a, "--kind", "employees", "--format", "jsonl", "-"], {});
    try {
      const [firstHalf, rest] = halves(400);
      await slow.feed(firstHalf);
      expect(await runsUnhindered([...global, "import", "--org", b, "--kind", "employees", other])).toContain("10 created");
      const done = await slow.finish(rest);
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      expect(done.stdout).toContain("400 created");
    } finally {
      slow.kill();
    }
  });
});

describe("Postgres", () => {
  // A statement timeout well under how long the first import takes: the wait must outlast it.
  const env = { LEAVEAPI_PG_STATEMENT_TIMEOUT_MS: "1500" };

  test("a second import of the same organisation, and an erasure in it, wait with one line, past the statement timeout, then land", async () => {
    const url = await newDatabase();
    const global = ["--database-url", url];
    const { a } = await setUp(global);
    const earlier = join(scratch.dir, "earlier.jsonl");
    writeFileSync(earlier, employeesText(3, "P"));
    expect(await runsUnhindered([...global, "import", "--org", a, "--kind", "employees", earlier], env)).toContain("3 created");
    // The first import keeps the default timeout: only the waiters must outlast a short one,
    // and a short one on the holder's own statements would fail it on a loaded machine.
    const first = startFed([...global, "import", "--org", a, "--kind", "employees", "--format", "jsonl", "-"], {});
    try {
      const [firstHalf, rest] = halves(20_000);
      await first.feed(firstHalf);
      const second = startFed([...global, "import", "--org", a, "--kind", "employees", "--format", "jsonl", "-"], env);
      // Whole: on Postgres an import asks for its organisation's lock as it writes its first rows.
      await second.close(employeesText(3, "N"));
      const erase = startFed([...global, "erase", "--org", a, "--employee", "P1", "--yes"], env);
      const waitLine = new RegExp(`^leaveapi: another import of organisation ${a} is running; waiting for it to finish$`, "m");
      await saysOnStderr(second, waitLine);
      await saysOnStderr(erase, waitLine);
      // Not a wait for anything to happen: the first import is held, half done, past the
      // statement timeout and the client's read timeout after it (2.5 s), which is what
      // ended the second import's wait before.
      await Bun.sleep(3000);
      const done = await first.finish(rest);
      expect(done.code).toBe(0);
      const secondDone = await second.finish();
      expect(secondDone.stderr.match(/^leaveapi: /gm)).toHaveLength(1);
      expect(secondDone.code).toBe(0);
      expect(secondDone.stdout).toContain("3 created");
      const eraseDone = await erase.finish();
      expect(eraseDone.code).toBe(0);
      expect(eraseDone.stdout).toContain("erased");
    } finally {
      first.kill();
    }
  });

  test("a dry run holds up no import of its organisation", async () => {
    const url = await newDatabase();
    const global = ["--database-url", url];
    const { a } = await setUp(global);
    const dry = startFed([...global, "import", "--org", a, "--kind", "employees", "--format", "jsonl", "--dry-run", "-"], env);
    try {
      const [firstHalf, rest] = halves(20_000);
      await dry.feed(firstHalf);
      const other = join(scratch.dir, "same-org.jsonl");
      writeFileSync(other, employeesText(5, "N"));
      expect(await runsUnhindered([...global, "import", "--org", a, "--kind", "employees", other], env)).toContain("5 created");
      const result = await dry.finish(rest);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("would import 20000 rows of employees into Night shift: 20000 created");
    } finally {
      dry.kill();
    }
  });
});
