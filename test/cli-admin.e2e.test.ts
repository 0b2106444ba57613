/**
 * The administrator's daily commands through the real command line (docs/cli.md, "org",
 * "credentials", "migrate"): renaming and deleting an organisation, refusing a duplicate
 * name, listing every organisation's credentials, rotating a secret with a grace period
 * that a running server honours, idempotent verbs, clean usage errors, each subcommand's
 * own help, and `serve --demo` revoking the demo credentials of earlier starts.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SQLITE } from "../adapters/sql/capabilities.ts";
import { schemaMigrations } from "../adapters/sql/migrations.ts";
import { runCli, runJson, scratchDir, startServer } from "./cli-harness.ts";

const LAST_MIGRATION = Object.keys(schemaMigrations(SQLITE)).at(-1);

let scratch: ReturnType<typeof scratchDir>;
let db: string[];

beforeAll(() => {
  scratch = scratchDir();
  db = ["--db", join(scratch.dir, "admin.sqlite")];
});
afterAll(() => scratch.dispose());

interface OrgJson {
  id: string;
  name: string;
  api_enabled: boolean;
}
interface ClientJson {
  client_id: string;
  client_secret: string;
  organisation_id: string;
  revoked_at: string | null;
  previous_secret_expires_at?: string | null;
}

let names = 0;
/** A new organisation with a name no other test uses. */
const newOrg = (name = `Org ${++names} Ltd`) => runJson<OrgJson>([...db, "org", "create", "--name", name]);

/** Asks a running server for a token; the HTTP status. */
async function tokenStatus(baseUrl: string, clientId: string, secret: string): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${clientId}:${secret}`)}` },
    body: "grant_type=client_credentials",
  });
  await res.body?.cancel();
  return res.status;
}

describe("org", () => {
  test("rename renames; the same name again says so", async () => {
    const org = await newOrg("Before Ltd");
    const renamed = await runJson<OrgJson>([...db, "org", "rename", org.id, "--name", "After Ltd"]);
    expect(renamed).toMatchObject({ id: org.id, name: "After Ltd" });
    const again = await runCli([...db, "org", "rename", org.id, "--name", "After Ltd"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already named After Ltd");
    const unknown = await runCli([...db, "org", "rename", "6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10", "--name", "X"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toStartWith("leaveapi: no organisation with id");
  });

  test("a duplicate name, in any letter case, is refused unless --allow-duplicate; so is renaming onto one", async () => {
    const first = await newOrg("Twin Ltd");
    const refused = await runCli([...db, "org", "create", "--name", "twin ltd"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(`leaveapi: an organisation named "Twin Ltd" exists already (${first.id}); pass --allow-duplicate to have two\n`);
    const second = await runJson<OrgJson>([...db, "org", "create", "--name", "Twin Ltd", "--allow-duplicate"]);
    expect(second.id).not.toBe(first.id);

    const other = await newOrg("Solo Ltd");
    expect((await runCli([...db, "org", "rename", other.id, "--name", "TWIN LTD"])).code).toBe(1);
    expect((await runJson<OrgJson>([...db, "org", "rename", other.id, "--name", "TWIN LTD", "--allow-duplicate"])).name).toBe("TWIN LTD");
  });

  test("delete without --yes counts what it would delete and exits 1; with --yes it deletes it all, credentials included", async () => {
    const org = await newOrg("Doomed Ltd");
    await runJson([...db, "import", "--org", org.id, "--kind", "employees", "examples/import/employees.csv"]);
    const creds = await runJson<ClientJson>([...db, "credentials", "create", "--org", org.id]);

    const dry = await runCli([...db, "org", "delete", org.id]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toBe(
      `Doomed Ltd (${org.id}) holds 3 employees, 0 leave bookings, 0 leave types, 0 closure days, 0 imported public holidays, 1 set of credentials, 0 access tokens\n`,
    );
    expect(dry.stderr).toBe(`leaveapi: nothing was deleted; run 'leaveapi org delete ${org.id} --yes' to delete all of it for good\n`);
    const dryJson = await runCli([...db, "org", "delete", org.id, "--json"]);
    expect(dryJson.code).toBe(1);
    expect(JSON.parse(dryJson.stdout)).toMatchObject({ deleted: false, contents: { employees: 3, clients: 1 } });
    expect((await runJson<OrgJson[]>([...db, "org", "list"])).map((o) => o.id)).toContain(org.id);

    const done = await runJson<{ deleted: boolean; contents: { employees: number; clients: number } }>([...db, "org", "delete", org.id, "--yes"]);
    expect(done).toMatchObject({ deleted: true, contents: { employees: 3, clients: 1 } });
    expect((await runJson<OrgJson[]>([...db, "org", "list"])).map((o) => o.id)).not.toContain(org.id);
    expect((await runJson<ClientJson[]>([...db, "credentials", "list"])).map((c) => c.client_id)).not.toContain(creds.client_id);
    const again = await runCli([...db, "org", "delete", org.id, "--yes"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`leaveapi: no organisation with id ${org.id}\n`);
  });

  test("enable-api and disable-api twice: the second says 'already', exit 0", async () => {
    const org = await newOrg();
    expect((await runCli([...db, "org", "enable-api", org.id])).stdout).toContain("is now on");
    const on = await runCli([...db, "org", "enable-api", org.id]);
    expect([on.code, on.stdout]).toEqual([0, `API access for ${org.name} (${org.id}) is already on\n`]);
    expect((await runCli([...db, "org", "disable-api", org.id])).stdout).toContain("is now off");
    const off = await runCli([...db, "org", "disable-api", org.id]);
    expect([off.code, off.stdout]).toEqual([0, `API access for ${org.name} (${org.id}) is already off\n`]);
  });
});

describe("credentials", () => {
  test("list without --org lists every organisation's, each line naming its organisation", async () => {
    const a = await newOrg("Alpha Ltd");
    const b = await newOrg("Beta Ltd");
    const ca = await runJson<ClientJson>([...db, "credentials", "create", "--org", a.id]);
    const cb = await runJson<ClientJson>([...db, "credentials", "create", "--org", b.id]);
    const all = await runJson<ClientJson[]>([...db, "credentials", "list"]);
    expect(all.map((c) => c.client_id)).toEqual(expect.arrayContaining([ca.client_id, cb.client_id]));
    expect(JSON.stringify(all)).not.toContain("svcs_");
    const human = await runCli([...db, "credentials", "list"]);
    expect(human.stdout).toContain(`${ca.client_id}  live     Alpha Ltd  `);
    expect(human.stdout).toContain(`${cb.client_id}  live     Beta Ltd  `);
    expect((await runJson<ClientJson[]>([...db, "credentials", "list", "--org", a.id])).map((c) => c.client_id)).toEqual([ca.client_id]);
  });

  test("list shows when credentials were created and last obtained a token; --unused-days keeps those that did not lately", async () => {
    const org = await newOrg("Usage Ltd");
    await runJson([...db, "org", "enable-api", org.id]);
    const used = await runJson<ClientJson & { client_secret: string }>([...db, "credentials", "create", "--org", org.id, "--name", "used"]);
    const idle = await runJson<ClientJson>([...db, "credentials", "create", "--org", org.id, "--name", "idle"]);
    const server = await startServer(db);
    try {
      const token = await fetch(`${server.baseUrl}/v1/oauth/token`, {
        method: "POST",
        headers: { Authorization: `Basic ${btoa(`${used.client_id}:${used.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      });
      expect(token.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    type Listed = ClientJson & { name: string | null; created_at: string; last_used_at: string | null };
    const listed = await runJson<Listed[]>([...db, "credentials", "list", "--org", org.id]);
    const byName = Object.fromEntries(listed.map((c) => [c.name, c]));
    expect(Date.parse(byName.used!.last_used_at!)).toBeGreaterThan(Date.now() - 60_000);
    expect(byName.idle!.last_used_at).toBeNull();
    expect(byName.idle!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const human = await runCli([...db, "credentials", "list", "--org", org.id]);
    const today = new Date().toISOString().slice(0, 10);
    expect(human.stdout).toContain(`${idle.client_id}  live     employees:read holidays:read leave:read  created ${today}, last used never  idle`);
    expect(human.stdout).toContain(`${used.client_id}  live     employees:read holidays:read leave:read  created ${today}, last used ${today}  used`);
    // Both are younger than a day: neither has gone unused for one.
    expect(await runJson<Listed[]>([...db, "credentials", "list", "--org", org.id, "--unused-days", "1"])).toEqual([]);
    // Unused since now: both, the one never used and the one last used a moment ago.
    const stale = await runJson<Listed[]>([...db, "credentials", "list", "--org", org.id, "--unused-days", "0"]);
    expect(stale.map((c) => c.name).sort()).toEqual(["idle", "used"]);
    expect((await runCli([...db, "credentials", "list", "--unused-days", "soon"])).code).toBe(2);
  }, 30_000);

  test("revoke twice: the second says 'already revoked', exit 0", async () => {
    const org = await newOrg();
    const creds = await runJson<ClientJson>([...db, "credentials", "create", "--org", org.id]);
    const first = await runCli([...db, "credentials", "revoke", creds.client_id]);
    expect(first.stdout).toStartWith(`revoked ${creds.client_id}`);
    const second = await runCli([...db, "credentials", "revoke", creds.client_id]);
    expect(second.code).toBe(0);
    expect(second.stdout).toStartWith(`${creds.client_id} is already revoked (since `);
  });

  test("rotate: a new secret on the same client id; the old one works for the grace period on a running server, and not after a rotation without one", async () => {
    const org = await newOrg();
    await runJson([...db, "org", "enable-api", org.id]);
    const creds = await runJson<ClientJson>([...db, "credentials", "create", "--org", org.id]);
    const server = await startServer(db);
    try {
      const graced = await runJson<ClientJson>([...db, "credentials", "rotate", creds.client_id, "--grace", "3600"]);
      expect(graced.client_id).toBe(creds.client_id);
      expect(graced.client_secret).toMatch(/^svcs_[A-Za-z0-9_-]{43}$/);
      expect(graced.client_secret).not.toBe(creds.client_secret);
      expect(Date.parse(graced.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(3_500_000);
      expect(await tokenStatus(server.baseUrl, creds.client_id, graced.client_secret)).toBe(200);
      expect(await tokenStatus(server.baseUrl, creds.client_id, creds.client_secret)).toBe(200);

      const human = await runCli([...db, "credentials", "rotate", creds.client_id]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain("The old secret stopped working now.");
      expect(human.stdout).toContain("Tokens already issued keep working until they expire");
      const secret = /client_secret: (\S+)/.exec(human.stdout)![1]!;
      expect(await tokenStatus(server.baseUrl, creds.client_id, secret)).toBe(200);
      expect(await tokenStatus(server.baseUrl, creds.client_id, graced.client_secret)).toBe(401);
      expect(await tokenStatus(server.baseUrl, creds.client_id, creds.client_secret)).toBe(401);
    } finally {
      await server.stop();
    }
  }, 60_000);

  test("rotate refuses revoked or unknown credentials (exit 1) and a bad --grace (exit 2)", async () => {
    const org = await newOrg();
    const creds = await runJson<ClientJson>([...db, "credentials", "create", "--org", org.id]);
    const bad = await runCli([...db, "credentials", "rotate", creds.client_id, "--grace", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("leaveapi: --grace takes whole seconds from 0 to 2592000 (30 days); got 'soon'");
    await runJson([...db, "credentials", "revoke", creds.client_id]);
    const revoked = await runCli([...db, "credentials", "rotate", creds.client_id]);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain("is revoked");
    const unknown = await runCli([...db, "credentials", "rotate", "svcc_000000000000000000000000"]);
    expect([unknown.code, unknown.stderr]).toEqual([1, "leaveapi: no credentials with client id svcc_000000000000000000000000\n"]);
  });
});

describe("migrate", () => {
  test("on a new file it says it created the schema; again, that it is up to date", async () => {
    const file = join(scratch.dir, "fresh.sqlite");
    expect(existsSync(file)).toBe(false);
    const first = await runCli(["--db", file, "migrate"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toStartWith(`created the schema in ${file} (`);
    const second = await runJson<{ created: boolean; applied: string[] }>(["--db", file, "migrate"]);
    expect(second).toMatchObject({ created: false, applied: [], bodies_rewritten: false });
    expect((await runCli(["--db", file, "migrate"])).stdout).toContain("is up to date");
  });

  test("a database whose kept JSON an earlier field list wrote: migrate says it wrote it again, and then that nothing is left", async () => {
    const file = join(scratch.dir, "older-bodies.sqlite");
    expect((await runCli(["--db", file, "migrate"])).code).toBe(0);
    const sqlite = new Database(file);
    sqlite.run("update installation set value = 'an older field list' where name = 'bodies_version'");
    sqlite.close();
    const rewritten = await runCli(["--db", file, "migrate"]);
    expect(rewritten.stdout).toBe(
      `the schema of ${file} is up to date (${LAST_MIGRATION}); wrote every record's kept JSON again (what a record's JSON holds has changed)\n`,
    );
    expect(await runJson(["--db", file, "migrate"])).toMatchObject({ applied: [], bodies_rewritten: false });
  });
});

describe("usage", () => {
  test.each([
    [["org", "create", "--nme", "X"], "leaveapi: unknown option --nme; did you mean --name?"],
    [["org", "create", "--name"], "leaveapi: --name needs a value"],
    [["org", "list", "--all"], "leaveapi: unknown option --all; this command takes no options"],
    [["credentials", "rotate", "svcc_000000000000000000000000", "--grace=5", "--graze"], "leaveapi: unknown option --graze; did you mean --grace?"],
  ])("a mistyped flag %p is one clean line, then the usage", async (args, line) => {
    const result = await runCli([...db, ...args]);
    expect(result.code).toBe(2);
    const [first, usage] = result.stderr.split("\n");
    expect(first).toBe(line);
    expect(usage).toStartWith("usage: leaveapi ");
  });

  test.each([
    ["org", "create", "--allow-duplicate"],
    ["org", "list", "Lists every organisation"],
    ["org", "rename", "leaveapi org rename ORG_ID --name NAME"],
    ["org", "delete", "--yes"],
    ["org", "enable-api", "leaveapi org enable-api ORG_ID"],
    ["org", "disable-api", "leaveapi org disable-api ORG_ID"],
    ["credentials", "create", "--scopes"],
    ["credentials", "list", "every organisation's"],
    ["credentials", "revoke", "Already revoked"],
    ["credentials", "rotate", "--grace"],
  ])("%s %s --help prints that subcommand's own help", async (command, sub, mention) => {
    const result = await runCli([command, sub, "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith(`usage: leaveapi ${command} ${sub}`);
    expect(result.stdout).toContain(mention);
    // Only its own: no other subcommand's usage line.
    expect(result.stdout.match(new RegExp(`leaveapi ${command} `, "g"))).toHaveLength(1);
  });
});

describe("serve --demo", () => {
  test("each start revokes the demo credentials earlier starts minted, and says so", async () => {
    const demoDb = ["--db", join(scratch.dir, "demo.sqlite")];
    const liveDemoClients = async () => (await runJson<ClientJson[]>([...demoDb, "credentials", "list"])).filter((c) => c.revoked_at === null);
    for (let start = 1; start <= 3; start++) {
      const server = await startServer(demoDb, { serveArgs: ["--demo"] });
      const output = server.output();
      await server.stop();
      if (start > 1) expect(output).toContain("--demo: revoked the demo credentials of earlier starts");
      const live = await liveDemoClients();
      expect(live).toHaveLength(1);
      expect(output).toContain(live[0]!.client_id);
    }
  }, 120_000);
});
