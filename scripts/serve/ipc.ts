/**
 * Request and answer over the IPC channel between the parent and a worker process (Bun's
 * `ipc` option and `process.send`): the parent asks each worker for its metrics, a worker
 * asks the parent for everyone's. A question not answered within its deadline is
 * `undefined`: a slow or dying worker must not hang a scrape.
 */

interface Question {
  ipc: "question";
  id: number;
  method: string;
}

interface Answer {
  ipc: "answer";
  id: number;
  value: unknown;
}

export interface IpcPeer {
  /** Asks the other side; `undefined` if it has not answered within `timeoutMs`. */
  ask: (method: string, timeoutMs: number) => Promise<unknown>;
  /** Feed every message from the other side here; returns whether it was for this peer. */
  receive: (message: unknown) => boolean;
}

function isQuestion(message: unknown): message is Question {
  return typeof message === "object" && message !== null && (message as Question).ipc === "question";
}

function isAnswer(message: unknown): message is Answer {
  return typeof message === "object" && message !== null && (message as Answer).ipc === "answer";
}

/**
 * One side of the channel: `send` writes a message to the other side, `answer` computes
 * the reply to one of its questions.
 */
export function createIpcPeer(send: (message: Question | Answer) => void, answer: (method: string) => Promise<unknown>): IpcPeer {
  let nextId = 0;
  // The other side may be gone (a worker that died): a lost message is a question unanswered.
  const post = (message: Question | Answer) => {
    try {
      send(message);
    } catch {}
  };
  const waiting = new Map<number, (value: unknown) => void>();
  return {
    ask(method, timeoutMs) {
      const id = ++nextId;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve(undefined);
        }, timeoutMs);
        waiting.set(id, (value) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(value);
        });
        post({ ipc: "question", id, method });
      });
    },
    receive(message) {
      if (isAnswer(message)) {
        waiting.get(message.id)?.(message.value);
        return true;
      }
      if (!isQuestion(message)) return false;
      void answer(message.method).then(
        (value) => post({ ipc: "answer", id: message.id, value }),
        () => post({ ipc: "answer", id: message.id, value: undefined }),
      );
      return true;
    },
  };
}
