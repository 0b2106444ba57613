/**
 * `serve`'s request log, written a batch of lines at a time: every line of one turn of the
 * event loop in one write, after the answers of that turn are sent. One write a request was
 * 15% of the server's time under load (a system call each; bench/RESULTS.md, "The request
 * log in batches"). The lines are the same and in the same order; a batch waits at most
 * until the loop's next check phase, and one past MAX_PENDING_CHARS is written at once, so
 * memory stays bounded under any load. A server event (start, a worker's exit) is written
 * at once, after the requests before it. `flush` writes what waits (before the process exits).
 */

/** Past this many characters waiting, the batch is written without waiting for the turn's end. */
export const MAX_PENDING_CHARS = 64 * 1024;

export interface CoalescedLines {
  /** Queues one line (without its newline); an `urgent` one (a server event, rare) is written at once, after what waits. */
  line: (text: string, urgent?: boolean) => void;
  /** Writes every queued line now. */
  flush: () => void;
}

export function coalescedLines(write: (chunk: string) => void, schedule: (task: () => void) => void = setImmediate): CoalescedLines {
  let pending: string[] = [];
  let chars = 0;
  let scheduled = false;
  const flush = () => {
    if (pending.length === 0) return;
    const chunk = `${pending.join("\n")}\n`;
    pending = [];
    chars = 0;
    write(chunk);
  };
  return {
    line(text, urgent = false) {
      pending.push(text);
      chars += text.length + 1;
      if (urgent || chars >= MAX_PENDING_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        schedule(() => {
          scheduled = false;
          flush();
        });
      }
    },
    flush,
  };
}
