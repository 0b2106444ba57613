import { describe, expect, test } from "bun:test";
import { MAX_PENDING_CHARS, coalescedLines } from "../scripts/serve/coalesced-lines.ts";

/** A log whose scheduled flushes run when the test says: one turn of the event loop at a time. */
function logWithTurns() {
  const writes: string[] = [];
  const tasks: (() => void)[] = [];
  const log = coalescedLines(
    (chunk) => writes.push(chunk),
    (task) => tasks.push(task),
  );
  const endTurn = () => {
    for (const task of tasks.splice(0)) task();
  };
  return { writes, log, endTurn, scheduled: () => tasks.length };
}

describe("serve's request log in batches", () => {
  test("the lines of one turn are one write at its end, in order, each ended by a newline", () => {
    const { writes, log, endTurn, scheduled } = logWithTurns();
    log.line("a");
    log.line("b");
    log.line("c");
    expect(writes).toEqual([]);
    expect(scheduled()).toBe(1);
    endTurn();
    expect(writes).toEqual(["a\nb\nc\n"]);
    log.line("d");
    endTurn();
    expect(writes).toEqual(["a\nb\nc\n", "d\n"]);
  });

  test("a batch past the bound is written at once, without waiting for the turn", () => {
    const { writes, log } = logWithTurns();
    const line = "x".repeat(1000);
    const lines = Math.ceil(MAX_PENDING_CHARS / (line.length + 1));
    for (let i = 0; i < lines; i++) log.line(line);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split("\n")).toHaveLength(lines + 1);
  });

  test("flush writes what waits, and a turn with nothing waiting writes nothing", () => {
    const { writes, log, endTurn } = logWithTurns();
    log.line("last words");
    log.flush();
    expect(writes).toEqual(["last words\n"]);
    endTurn();
    expect(writes).toEqual(["last words\n"]);
  });

  test("an urgent line is written at once, after the lines that wait", () => {
    const { writes, log } = logWithTurns();
    log.line("GET /v1/employees 200");
    log.line('{"event":"worker_listening"}', true);
    expect(writes).toEqual(['GET /v1/employees 200\n{"event":"worker_listening"}\n']);
  });
});
