/**
 * The load side of the soak (bench/soak.ts starts it, in a process of its own so that it
 * shares no event loop with the server). Reads a `SoakJob` as JSON on stdin, prints
 * `started` when the load begins, drives a closed loop of `concurrency` workers over a
 * weighted mix of every endpoint and token requests for `seconds`, then prints one JSON
 * `SoakLoad` line.
 *
 * Each request kind has the statuses it may get; anything else is counted as unexpected.
 * Token requests rotate over many credentials, each kept under 10 a rolling minute so that
 * the per-client limit is never reached by them; one "hot" client is asked far more often
 * on purpose, and its 429s are expected.
 */
export interface SoakJob {
  baseUrl: string;
  seconds: number;
  concurrency: number;
  clients: { id: string; secret: string }[];
  hot: { id: string; secret: string };
  employeeIds: string[];
}

export interface SoakLoad {
  requests: number;
  seconds: number;
  /** Status counts by request kind. */
  byKind: Record<string, Record<string, number>>;
  /** `kind status` → count, for answers outside the kind's expected statuses. */
  unexpected: Record<string, number>;
  socketErrors: number;
  /** The first few socket errors' messages. */
  errorSamples: string[];
}

type Kind = "employees" | "employee" | "employee-missing" | "leave" | "holidays" | "healthz" | "bad-param" | "bad-token" | "token" | "token-hot";

const EXPECTED: Record<Kind, number[]> = {
  employees: [200],
  employee: [200],
  "employee-missing": [404],
  leave: [200],
  holidays: [200],
  healthz: [200],
  "bad-param": [400],
  "bad-token": [401],
  token: [200],
  "token-hot": [200, 429],
};
const WEIGHTS: [Kind, number][] = [
  ["employees", 25],
  ["employee", 20],
  ["employee-missing", 3],
  ["leave", 20],
  ["holidays", 10],
  ["healthz", 2],
  ["bad-param", 2],
  ["bad-token", 2],
  ["token", 6],
  ["token-hot", 2],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
/** Per client: at most this many token requests in any WINDOW_MS (the server allows 10 a minute). */
const CLIENT_BUDGET = 9;
const WINDOW_MS = 61_000;

const job = JSON.parse(await Bun.stdin.text()) as SoakJob;
const load: SoakLoad = { requests: 0, seconds: 0, byKind: {}, unexpected: {}, socketErrors: 0, errorSamples: [] };
const tokens: string[] = [];
const clientUses = job.clients.map(() => [] as number[]);
let nextClient = 0;
let cursor: string | null = null;

const form = "application/x-www-form-urlencoded";
const basic = (c: { id: string; secret: string }) => `Basic ${btoa(`${c.id}:${c.secret}`)}`;
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

function chooseKind(): Kind {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const [kind, weight] of WEIGHTS) if ((r -= weight) < 0) return kind;
  return "employees";
}

/** A pool client with budget left, or null when every one is at its limit for now. */
function takeClient(now: number): { id: string; secret: string } | null {
  for (let tried = 0; tried < job.clients.length; tried++) {
    const i = nextClient++ % job.clients.length;
    const uses = clientUses[i]!.filter((t) => now - t < WINDOW_MS);
    clientUses[i] = uses;
    if (uses.length < CLIENT_BUDGET) {
      uses.push(now);
      return job.clients[i]!;
    }
  }
  return null;
}

function requestFor(kind: Kind): { kind: Kind; path: string; init: RequestInit } {
  const bearer = { headers: { Authorization: `Bearer ${pick(tokens)}` } };
  const tokenRequest = (client: { id: string; secret: string }) => ({
    method: "POST",
    headers: { Authorization: basic(client), "Content-Type": form },
    body: "grant_type=client_credentials",
  });
  switch (kind) {
    case "employees":
      return { kind, path: `/v1/employees?limit=100${cursor !== null && Math.random() < 0.5 ? `&cursor=${cursor}` : ""}`, init: bearer };
    case "employee":
      return { kind, path: `/v1/employees/${pick(job.employeeIds)}`, init: bearer };
    case "employee-missing":
      return { kind, path: `/v1/employees/${crypto.randomUUID()}`, init: bearer };
    case "leave":
      return { kind, path: `/v1/leave-requests?from=${pick(["2026-01-01", "2026-04-01", "2026-09-01"])}&to=2026-12-31&limit=100`, init: bearer };
    case "holidays":
      return { kind, path: `/v1/holidays?from=2026-01-01&to=2026-12-31${Math.random() < 0.5 ? "&calendar=GB-ENG" : ""}`, init: bearer };
    case "healthz":
      return { kind, path: "/healthz", init: {} };
    case "bad-param":
      return { kind, path: "/v1/employees?limit=0", init: bearer };
    case "bad-token":
      return { kind, path: "/v1/employees", init: { headers: { Authorization: `Bearer svct_${"A".repeat(43)}` } } };
    case "token-hot":
      return { kind, path: "/v1/oauth/token", init: tokenRequest(job.hot) };
    case "token": {
      const client = takeClient(Date.now());
      return client ? { kind, path: "/v1/oauth/token", init: tokenRequest(client) } : requestFor("employees");
    }
  }
}

function count(kind: Kind, status: number): void {
  const statuses = (load.byKind[kind] ??= {});
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (!EXPECTED[kind].includes(status)) load.unexpected[`${kind} ${status}`] = (load.unexpected[`${kind} ${status}`] ?? 0) + 1;
}

/** Reads what later requests need (tokens, the next cursor); every other body is drained unread. */
async function consume(kind: Kind, res: Response): Promise<void> {
  if ((kind === "token" || kind === "token-hot") && res.status === 200) {
    tokens.push(((await res.json()) as { access_token: string }).access_token);
    if (tokens.length > 64) tokens.shift();
  } else if (kind === "employees" && res.status === 200 && Math.random() < 0.2) {
    cursor = ((await res.json()) as { next_cursor: string | null }).next_cursor;
  } else {
    await res.arrayBuffer();
  }
}

async function worker(deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    const { kind, path, init } = requestFor(chooseKind());
    try {
      const res = await fetch(`${job.baseUrl}${path}`, init);
      await consume(kind, res);
      count(kind, res.status);
    } catch (error) {
      load.socketErrors++;
      if (load.errorSamples.length < 5) load.errorSamples.push(`${kind}: ${(error as Error).message}`);
    }
    load.requests++;
  }
}

// One token before the load starts, so the data requests have one from the first moment.
const first = await fetch(`${job.baseUrl}/v1/oauth/token`, {
  method: "POST",
  headers: { Authorization: basic(job.clients[0]!), "Content-Type": form },
  body: "grant_type=client_credentials",
});
if (first.status !== 200) throw new Error(`the first token request answered ${first.status}: ${await first.text()}`);
tokens.push(((await first.json()) as { access_token: string }).access_token);
clientUses[0]!.push(Date.now());
nextClient = 1;

console.log("started");
const started = performance.now();
await Promise.all(Array.from({ length: job.concurrency }, () => worker(started + job.seconds * 1000)));
load.seconds = Number(((performance.now() - started) / 1000).toFixed(3));
console.log(JSON.stringify(load));
