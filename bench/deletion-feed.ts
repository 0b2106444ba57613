/**
 * The deletions feed's page cost against the number of tombstones (issue 17): server time
 * per `GET /v1/deletions` page, the handler alone on SQLite, for one organisation holding
 * few tombstones and one holding a hundred times as many. Each page is one ordered scan
 * of the `deletions_page` index from its cursor, so the ratio should stay near 1.
 *
 * The tombstones are written straight into the `deletions` table (the feed reads nothing
 * else), as 80 nightly imports over the last 80 days would have written them (well
 * within the 90 kept): the deletions of one import share its instant. The pages timed are
 * the first and every later one of each organisation's feed, in a scattered order.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { mintClient } from "../lib/credentials.ts";
import { randomUuid } from "../lib/ids.ts";
import { createHandler } from "../server/handler.ts";
import type { Target } from "./harness/report.ts";
import { timeHandler, type HandlerTiming } from "./harness/in-process.ts";

const DAY_MS = 86_400_000;
const SPREAD_DAYS = 80;
const PAGE = 100;

export interface DeletionFeedOptions {
  /** Tombstones of the small and the large organisation. */
  small: number;
  large: number;
  /** Timed requests per organisation. */
  requests: number;
  /** A directory for the database file. */
  dir: string;
  log: (text: string) => void;
}

interface Organisation {
  id: string;
  token: string;
  paths: string[];
}

/** Inserts `count` employee tombstones of `organisationId`, deleted by one import a day over the SPREAD_DAYS before `now`. */
function writeTombstones(file: string, organisationId: string, count: number, now: number): void {
  const db = new Database(file);
  const insert = db.prepare("insert into deletions (organisation_id, resource, id, deleted_at) values (?, 'employees', ?, ?)");
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(organisationId, randomUuid(), now - SPREAD_DAYS * DAY_MS + Math.floor((i * SPREAD_DAYS) / count) * DAY_MS);
  })();
  db.close();
}

/** The feed's first page and every later one, by walking its cursors. */
async function feedPaths(handler: ReturnType<typeof createHandler>, token: string, since: string): Promise<string[]> {
  const first = `/v1/deletions?resource=employees&updated_since=${encodeURIComponent(since)}&limit=${PAGE}`;
  const paths = [first];
  for (let path = first; ; ) {
    const res = await handler(new Request(`http://bench.local${path}`, { headers: { Authorization: `Bearer ${token}` } }), { remoteAddress: "127.0.0.1" });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    const page = (await res.json()) as { next_cursor: string | null };
    if (page.next_cursor === null) return paths;
    path = `${first}&cursor=${page.next_cursor}`;
    paths.push(path);
  }
}

/** Times the feed's pages for a small and a large organisation; the row for the report's targets. */
export async function deletionFeedTarget(options: DeletionFeedOptions): Promise<Target> {
  const file = join(options.dir, "deletions.sqlite");
  const now = Date.now();
  const since = new Date(now - (SPREAD_DAYS + 1) * DAY_MS).toISOString();
  const store = openSqliteStore({ filename: file });
  try {
    await store.migrate();
    const handler = createHandler({ store });
    const organisation = async (name: string, tombstones: number): Promise<Organisation> => {
      const id = randomUuid();
      await store.createOrganisation({ id, name, api_enabled: true, created_at: now });
      const { client, secret } = mintClient(id, ["employees:read"], "bench", now);
      await store.createClient(client);
      writeTombstones(file, id, tombstones, now);
      const res = await handler(
        new Request("http://bench.local/v1/oauth/token", {
          method: "POST",
          headers: { Authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials",
        }),
        { remoteAddress: "127.0.0.1" },
      );
      const token = ((await res.json()) as { access_token: string }).access_token;
      return { id, token, paths: await feedPaths(handler, token, since) };
    };
    const small = await organisation("Few deletions", options.small);
    const large = await organisation("Many deletions", options.large);
    const time = (org: Organisation): Promise<HandlerTiming> => timeHandler(store, org.token, org.paths, options.requests);
    // Small, large, small, large: a noisy moment on a shared machine moves both alike.
    const [s1, l1, s2, l2] = [await time(small), await time(large), await time(small), await time(large)];
    const mean = (a: HandlerTiming, b: HandlerTiming) => Math.round((a.mean_us + b.mean_us) / 2);
    const smallUs = mean(s1!, s2!);
    const largeUs = mean(l1!, l2!);
    const ratio = smallUs > 0 ? largeUs / smallUs : 0;
    options.log(`deletions feed page: ${largeUs} µs at ${options.large} tombstones vs ${smallUs} µs at ${options.small} = ${ratio.toFixed(2)}×`);
    return {
      id: "D",
      measure: `\`GET /v1/deletions\` page (limit ${PAGE}, every page of the feed), server time per request, ${options.large} vs ${options.small} tombstones in one organisation`,
      target: "≤ 1.5×",
      measured: `${largeUs} µs (${large.paths.length} pages, p99 ${Math.max(l1!.p99_us, l2!.p99_us)} µs) vs ${smallUs} µs (${small.paths.length} pages, p99 ${Math.max(s1!.p99_us, s2!.p99_us)} µs) = ${ratio.toFixed(2)}×`,
      met: ratio <= 1.5,
    };
  } finally {
    await store.close();
  }
}
