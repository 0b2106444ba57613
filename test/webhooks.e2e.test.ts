/**
 * Change notifications end to end (docs/api.md, "Change notifications"), on SQLite and on
 * Postgres: `leaveapi serve` posts a signed event that the `standardwebhooks` package
 * verifies unedited, within 2 s of the import's publication; retries with growing waits;
 * keeps an undelivered event across a restart; sends nothing more to a revoked
 * credential's endpoint; tells a restricted credential only of changes it can read; and,
 * with two instances on one Postgres, sends each event once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runJson, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";
import { pollUntil, scratchDatabases } from "./pg-scratch.ts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";

interface Added {
  id: string;
  secret: string;
  url: string;
}

/** Waits until the receiver holds `count` deliveries, and answers them. */
const deliveriesOf = async (receiver: Receiver, count: number, what: string) =>
  (
    await pollUntil(
      what,
      15_000,
      async () => (receiver.deliveries.length >= count ? receiver.deliveries.slice() : undefined),
      () => `${receiver.deliveries.length} so far, unverified ${receiver.unverified.length}`,
    )
  ).value;

function scenarios(name: string, storeArgs: () => Promise<string[]>, shared = false) {
  describe(`webhooks on ${name}`, () => {
    let scratch: ReturnType<typeof scratchDir>;
    let db: string[];
    let org: string;
    let full: { client_id: string };
    let sales: { client_id: string };
    const servers: RunningServer[] = [];
    const receivers: Receiver[] = [];
    let fileNo = 0;

    const importEmployees = async (rows: { external_id: string; department: string }[]) => {
      const file = join(scratch.dir, `employees-${++fileNo}.jsonl`);
      writeFileSync(file, rows.map((r) => JSON.stringify({ ...r, first_name: "A", last_name: `Person ${fileNo}`, status: "active" })).join("\n"));
      const result = await runCli([...db, "import", "--org", org, "--kind", "employees", file]);
      expect(result.code).toBe(0);
      return Date.now();
    };
    const receiverFor = async (clientId: string, port = 0) => {
      const receiver = startReceiver(port);
      receivers.push(receiver);
      const added = await runJson<Added>([...db, "webhooks", "add", "--client", clientId, "--url", receiver.url]);
      expect(added.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      receiver.verifyWith(added.secret);
      return { receiver, added };
    };
    const serve = async () => {
      const server = await startServer(db, { serveArgs: ["--webhook-retry", "1", "--log-format", "json"] });
      servers.push(server);
      return server;
    };

    beforeAll(async () => {
      scratch = scratchDir();
      db = await storeArgs();
      if (db.length === 0) db = ["--db", join(scratch.dir, "hooks.sqlite")];
      org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Acme"])).id;
      await runJson([...db, "org", "enable-api", org]);
      full = await runJson([...db, "credentials", "create", "--org", org]);
      sales = await runJson([...db, "credentials", "create", "--org", org, "--departments", "Sales", "--scopes", "employees:read"]);
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await Promise.all(receivers.map((r) => r.stop()));
      scratch.dispose();
    });

    test("an import is one verified event per endpoint within 2 s; a restricted credential hears only of its part", async () => {
      const { receiver: all } = await receiverFor(full.client_id);
      const { receiver: few } = await receiverFor(sales.client_id);
      const listed = await runJson<{ client_id: string; state: string }[]>([...db, "webhooks", "list", "--org", org]);
      expect(listed.map((e) => e.state)).toEqual(["ok", "ok"]);
      expect(JSON.stringify(listed)).not.toContain("whsec_");
      const server = await serve();

      // Only people outside the restricted credential's departments.
      const published = await importEmployees([{ external_id: "e1", department: "Engineering" }]);
      const [first] = await deliveriesOf(all, 1, "the full credential's event");
      expect(first!.at - published).toBeLessThan(2000);
      expect(first!.payload).toMatchObject({ type: "leaveapi.data.changed", data: { organisation_id: org, resources: ["employees"] } });
      expect(Date.parse(first!.payload.data.changed_since!)).toBeLessThanOrEqual(published);

      // Then someone in Sales: the restricted credential's first event is this one, so it had none for the first import.
      const salesAt = await importEmployees([{ external_id: "s1", department: "Sales" }]);
      const [only] = await deliveriesOf(few, 1, "the restricted credential's event");
      expect(only!.payload.data.resources).toEqual(["employees"]);
      expect(Date.parse(only!.payload.data.changed_since!)).toBeGreaterThan(published);
      expect(Date.parse(only!.payload.data.changed_since!)).toBeLessThanOrEqual(salesAt);
      await deliveriesOf(all, 2, "the full credential's second event");
      expect(all.unverified).toEqual([]);
      expect(few.unverified).toEqual([]);
      // The server counts a delivery once the receiver's answer is back, a moment after the receiver saw it.
      await pollUntil("three deliveries counted", 5000, async () => {
        const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
        return /leaveapi_webhook_deliveries_total\{outcome="delivered"\} 3\n/.test(metrics) ? true : undefined;
      });
      expect(server.output()).toContain('"event":"webhook_delivered"');
      expect(server.output()).not.toContain("whsec_");
      await runCli([
        ...db,
        "webhooks",
        "remove",
        (await runJson<{ id: string; client_id: string }[]>([...db, "webhooks", "list", "--client", sales.client_id]))[0]!.id,
      ]);
    }, 30_000);

    test("500 twice then 200: three attempts of one event, with growing waits", async () => {
      const { receiver } = await receiverFor(full.client_id);
      receiver.answerNext(500, 500);
      await importEmployees([{ external_id: "e2", department: "Engineering" }]);
      const got = await deliveriesOf(receiver, 3, "three attempts");
      expect(got.map((d) => d.status)).toEqual([500, 500, 200]);
      expect(new Set(got.map((d) => d.id)).size).toBe(1);
      const waits = [got[1]!.at - got[0]!.at, got[2]!.at - got[1]!.at];
      expect(waits[0]).toBeGreaterThanOrEqual(450);
      expect(waits[1]).toBeGreaterThan(waits[0]!);
      const listed = await runJson<{ id: string; last_error: string | null; state: string }[]>([...db, "webhooks", "list", "--client", full.client_id]);
      expect(listed.find((e) => e.last_error !== null)?.last_error).toContain("HTTP 500");
      expect(listed.every((e) => e.state === "ok")).toBe(true);
    }, 30_000);

    test("a receiver down across a restart of serve gets the event after it", async () => {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      let { receiver, added } = await receiverFor(full.client_id, port);
      await receiver.stop();
      await importEmployees([{ external_id: "e3", department: "Engineering" }]);
      await pollUntil("a failed attempt", 15_000, async () => {
        const listed = await runJson<{ id: string; last_error: string | null }[]>([...db, "webhooks", "list", "--client", full.client_id]);
        return listed.find((e) => e.id === added.id)?.last_error ?? undefined;
      });
      await Promise.all(servers.splice(0).map((s) => s.stop()));
      receiver = startReceiver(port);
      receivers.push(receiver);
      receiver.verifyWith(added.secret);
      await serve();
      const [late] = await deliveriesOf(receiver, 1, "the event after the restart");
      expect(late!.payload.data.resources).toEqual(["employees"]);
    }, 40_000);

    test("webhooks test sends a verified test event; a revoked credential's endpoints are gone and get nothing", async () => {
      const { receiver, added } = await receiverFor(full.client_id);
      const tested = await runJson<{ delivered: boolean; status: number }>([...db, "webhooks", "test", added.id]);
      expect(tested).toMatchObject({ delivered: true, status: 200 });
      expect(receiver.deliveries[0]!.payload).toMatchObject({ type: "leaveapi.webhook.test", data: { organisation_id: org, endpoint_id: added.id } });
      await runJson([...db, "credentials", "revoke", full.client_id]);
      expect(await runJson<unknown[]>([...db, "webhooks", "list", "--client", full.client_id])).toEqual([]);
      // The restricted credential hears of the next Sales import; the revoked one of nothing.
      const { receiver: few } = await receiverFor(sales.client_id);
      await importEmployees([{ external_id: "s2", department: "Sales" }]);
      await deliveriesOf(few, 1, "the restricted credential's event");
      expect(receiver.deliveries.length).toBe(1);
      const bad = await runCli([...db, "webhooks", "add", "--client", full.client_id, "--url", "ftp://example.com/"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("--url: the URL must be http or https");
      const revoked = await runCli([...db, "webhooks", "add", "--client", full.client_id, "--url", "http://127.0.0.1:1/"]);
      expect(revoked.code).toBe(1);
      expect(revoked.stderr).toContain("is revoked");
    }, 30_000);

    test("webhooks test says why a receiver failed (exit 1); list shows endpoints in text; remove of an unknown id fails", async () => {
      const { receiver, added } = await receiverFor(sales.client_id);
      receiver.answerNext(503);
      const failed = await runCli([...db, "webhooks", "test", added.id]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`test event to ${receiver.url} not delivered: HTTP 503: not now`);
      const text = await runCli([...db, "webhooks", "list", "--client", sales.client_id]);
      expect(text.stdout).toContain(`${added.id}  ${sales.client_id}  ok  ${receiver.url}`);
      expect(text.stdout).not.toContain("whsec_");
      const removed = await runJson<{ removed: boolean }>([...db, "webhooks", "remove", added.id]);
      expect(removed.removed).toBe(true);
      const again = await runCli([...db, "webhooks", "remove", added.id]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`no webhook endpoint with id ${added.id}`);
      const usage = await runCli([...db, "webhooks", "add", "--client", sales.client_id]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain("--url");
    }, 30_000);

    if (shared)
      test("two instances on one database send each event once", async () => {
        const other = await runJson<{ client_id: string }>([...db, "credentials", "create", "--org", org]);
        const { receiver } = await receiverFor(other.client_id);
        // Exactly these two instances: the earlier tests' server stops first.
        await Promise.all(servers.splice(0).map((s) => s.stop()));
        const [a, b] = [await serve(), await serve()];
        for (let i = 1; i <= 6; i++) {
          await importEmployees([{ external_id: `twice-${i}`, department: "Engineering" }]);
          await deliveriesOf(receiver, i, `event ${i}`);
        }
        const ids = receiver.deliveries.map((d) => d.id);
        expect(ids.length).toBe(6);
        expect(new Set(ids).size).toBe(6);
        // Each instance logs a delivery once the receiver's answer is back, a moment after the receiver saw it.
        const sent = () =>
          [a, b]
            .map(
              (s) =>
                s
                  .output()
                  .split("\n")
                  .filter((l) => l.includes('"event":"webhook_delivered"') && l.includes(other.client_id)).length,
            )
            .reduce((x, y) => x + y);
        await pollUntil("six delivery log lines", 5000, async () => (sent() >= 6 ? true : undefined));
        expect(sent()).toBe(6);
        expect(receiver.deliveries.length).toBe(6);
      }, 60_000);

    if (shared)
      test("with reads on a replica, the sender decides on the primary: a replica that has nothing yet loses no event", async () => {
        await Promise.all(servers.splice(0).map((s) => s.stop()));
        const other = await runJson<{ client_id: string }>([...db, "credentials", "create", "--org", org]);
        const { receiver } = await receiverFor(other.client_id);
        // A "replica" that never catches up: another database, with the schema and nothing else.
        const replica = await newDatabase();
        await runJson(["--database-url", replica, "migrate"]);
        const server = await startServer([...db, "--database-read-url", replica], { serveArgs: ["--log-format", "json"] });
        servers.push(server);
        await importEmployees([{ external_id: "replica-1", department: "Engineering" }]);
        const [event] = await deliveriesOf(receiver, 1, "the event decided on the primary");
        expect(event!.payload.data.resources).toEqual(["employees"]);
      }, 30_000);
  });
}

scenarios("SQLite", async () => []);

const newDatabase = scratchDatabases("webhooks");
scenarios("Postgres", async () => ["--database-url", await newDatabase()], true);
