/**
 * The command line as an operator meets it (docs/cli.md): real child processes, exit
 * codes 0/1/2, one clear stderr line per error, --json documents, --help everywhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { runCli, runJson, scratchDir } from "./cli-harness.ts";

let scratch: ReturnType<typeof scratchDir>;
let db: string[];

beforeAll(() => {
  scratch = scratchDir();
  db = ["--db", join(scratch.dir, "cli.sqlite")];
});
afterAll(() => scratch.dispose());

describe("usage", () => {
  test("--version and --help", async () => {
    const version = await runCli(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["serve", "migrate", "org", "credentials", "import", "demo", "backup", "check"]) expect(help.stdout).toContain(command);
  });

  test("leaveapi help [COMMAND [SUBCOMMAND]] prints what --help does; an unknown command is bad usage", async () => {
    for (const args of [[], ["import"], ["org", "delete"], ["credentials", "rotate"]]) {
      const viaHelp = await runCli(["help", ...args]);
      const viaFlag = await runCli([...args, "--help"]);
      expect({ code: viaHelp.code, stdout: viaHelp.stdout }).toEqual({ code: 0, stdout: viaFlag.stdout });
    }
    const unknown = await runCli(["help", "nope"]);
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
      code: 2,
      stderr: "leaveapi: unknown command 'nope'; run 'leaveapi --help' for the list\n",
    });
  });

  test.each([["serve"], ["migrate"], ["org"], ["credentials"], ["import"], ["demo"], ["backup"], ["check"]])(
    "%s --help prints its usage and exits 0",
    async (command) => {
      const result = await runCli([command, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`leaveapi ${command}`);
    },
  );

  test.each([
    [[], "no command"],
    [["frobnicate"], "unknown command"],
    [["org"], "org subcommand"],
    [["org", "create"], "--name"],
    [["org", "create", "--name", "X", "--colour", "blue"], "colour"],
    [["org", "enable-api"], "ORG_ID"],
    [["credentials", "create"], "--org"],
    [["credentials", "create", "--org", "00000000-0000-0000-0000-000000000000", "--scopes", "payroll:write"], "--scopes"],
    [["credentials", "revoke"], "CLIENT_ID"],
    [["import", "--kind", "employees", "x.jsonl"], "--org"],
    [["serve", "--port", "http"], "--port"],
    [["--db"], "--db"],
  ] as [string[], string][])("bad usage %p exits 2 with one line on stderr naming the problem", async (args, mention) => {
    const result = await runCli([...db, ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")[0]).toContain(mention);
  });
});

describe("organisations and credentials", () => {
  test("create, enable, mint, list, revoke, disable", async () => {
    const org = await runJson<{ id: string; name: string; api_enabled: boolean }>([...db, "org", "create", "--name", "Acme Ltd"]);
    expect(org.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(org.name).toBe("Acme Ltd");
    expect(org.api_enabled).toBe(false);

    const listed = await runJson<{ id: string }[]>([...db, "org", "list"]);
    expect(listed.map((o) => o.id)).toContain(org.id);

    expect((await runJson<{ api_enabled: boolean }>([...db, "org", "enable-api", org.id])).api_enabled).toBe(true);

    const creds = await runJson<{ client_id: string; client_secret: string; scopes: string[] }>([
      ...db,
      "credentials",
      "create",
      "--org",
      org.id,
      "--scopes",
      "leave:read employees:read",
      "--name",
      "payroll",
    ]);
    expect(creds.client_id).toMatch(/^svcc_[0-9a-f]{24}$/);
    expect(creds.client_secret).toMatch(/^svcs_[A-Za-z0-9_-]{43}$/);
    expect(creds.scopes).toEqual(["employees:read", "leave:read"]);

    const clients = await runJson<{ client_id: string; revoked_at: string | null }[]>([...db, "credentials", "list", "--org", org.id]);
    expect(clients).toHaveLength(1);
    expect(JSON.stringify(clients)).not.toContain(creds.client_secret);

    const revoked = await runJson<{ revoked_at: string | null }>([...db, "credentials", "revoke", creds.client_id]);
    expect(revoked.revoked_at).not.toBeNull();
    expect((await runJson<{ api_enabled: boolean }>([...db, "org", "disable-api", org.id])).api_enabled).toBe(false);
  });

  test("the human output of credentials create shows the secret once and says so", async () => {
    const org = await runJson<{ id: string }>([...db, "org", "create", "--name", "Human Ltd"]);
    const result = await runCli([...db, "credentials", "create", "--org", org.id]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/client_secret: +svcs_/);
    expect(result.stdout).toContain("shown only now");
  });

  test.each([
    [["org", "enable-api", "6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10"]],
    [["org", "disable-api", "not-a-uuid"]],
    [["credentials", "create", "--org", "6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10"]],
    [["credentials", "list", "--org", "6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10"]],
    [["credentials", "revoke", "svcc_000000000000000000000000"]],
    [["import", "--org", "6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10", "--kind", "employees", "examples/import/employees.jsonl"]],
  ])("an unknown organisation or client %p exits 1 with one line", async (args) => {
    const result = await runCli([...db, ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^leaveapi: no (organisation|credentials)/);
  });

  test("migrate is idempotent and names the database", async () => {
    const first = await runJson<{ migrated: boolean; database: string }>([...db, "migrate"]);
    const second = await runJson<{ migrated: boolean }>([...db, "migrate"]);
    expect(first).toMatchObject({ migrated: true, database: "sqlite" });
    expect(second.migrated).toBe(true);
  });

  test("LEAVEAPI_DB selects the SQLite file when --db is absent", async () => {
    const file = join(scratch.dir, "from-env.sqlite");
    await runJson(["org", "create", "--name", "Env Ltd"], { env: { LEAVEAPI_DB: file } });
    const orgs = await runJson<{ name: string }[]>(["--db", file, "org", "list"]);
    expect(orgs.map((o) => o.name)).toEqual(["Env Ltd"]);
  });

  test("an empty LEAVEAPI_DB is unset: the default ./leaveapi.sqlite keeps what a command wrote", async () => {
    const cwd = join(scratch.dir, "empty-env");
    mkdirSync(cwd);
    await runJson(["org", "create", "--name", "Default Ltd"], { cwd, env: { LEAVEAPI_DB: "" } });
    const orgs = await runJson<{ name: string }[]>(["--db", join(cwd, "leaveapi.sqlite"), "org", "list"]);
    expect(orgs.map((o) => o.name)).toEqual(["Default Ltd"]);
  });

  test("--db while DATABASE_URL is set: SQLite is used, and stderr says so and that DATABASE_URL is ignored", async () => {
    const file = join(scratch.dir, "flag-wins.sqlite");
    const result = await runCli(["--db", file, "org", "list"], { env: { DATABASE_URL: "postgres://admin:secret@db.example:5432/hr" } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`leaveapi: using the sqlite database ${file} (from --db); ignoring DATABASE_URL\n`);
  });

  test("DATABASE_URL and LEAVEAPI_DB both set: Postgres is used, stderr says so (no password) and that LEAVEAPI_DB is ignored", async () => {
    const result = await runCli(["check"], {
      env: { DATABASE_URL: "postgres://admin:secret@127.0.0.1:1/hr", LEAVEAPI_DB: join(scratch.dir, "ignored.sqlite") },
    });
    expect(result.stderr.split("\n")[0]).toBe(
      "leaveapi: using the postgres database postgres://admin:***@127.0.0.1:1/hr (from DATABASE_URL); ignoring LEAVEAPI_DB",
    );
    expect(result.stderr).not.toContain("secret");
  });

  test("--db and --database-url together are bad usage", async () => {
    const result = await runCli(["--db", "x.sqlite", "--database-url", "postgres://127.0.0.1/x", "org", "list"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("leaveapi: give either --db or --database-url, not both\n");
  });

  test("--db with an empty name is bad usage", async () => {
    const result = await runCli(["--db", "", "org", "list"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("leaveapi: --db needs a value\n");
  });
});

describe("import", () => {
  async function newOrg() {
    return (await runJson<{ id: string }>([...db, "org", "create", "--name", "Import Ltd", "--allow-duplicate"])).id;
  }

  test("a file with one bad row exits 1, names FILE:LINE: field, and writes nothing", async () => {
    const org = await newOrg();
    const file = join(scratch.dir, "bad.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ external_id: "E1", first_name: "Ada", last_name: "L", status: "active", holiday_calendar: "GB-ENG" }),
        JSON.stringify({ external_id: "E2", first_name: "Bob", last_name: "M", status: "Active!", holiday_calendar: "GB-ENG" }),
      ].join("\n"),
    );
    const result = await runCli([...db, "import", "--org", org, "--kind", "employees", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:2: status:`);
    const good = join(scratch.dir, "good.jsonl");
    writeFileSync(good, JSON.stringify({ external_id: "E9", first_name: "Cy", last_name: "N", status: "active" }));
    const counts = await runJson<{ created: number }>([...db, "import", "--org", org, "--kind", "employees", good]);
    expect(counts.created).toBe(1);
  });

  test("CSV imports, and an identical re-import changes nothing", async () => {
    const org = await newOrg();
    const first = await runJson<{ created: number; unchanged: number }>([
      ...db,
      "import",
      "--org",
      org,
      "--kind",
      "employees",
      "examples/import/employees.csv",
    ]);
    expect(first.created).toBeGreaterThan(0);
    const again = await runJson<{ created: number; updated: number; unchanged: number }>([
      ...db,
      "import",
      "--org",
      org,
      "--kind",
      "employees",
      "examples/import/employees.csv",
    ]);
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: first.created });
  });

  test("stdin with --format", async () => {
    const org = await newOrg();
    const line = JSON.stringify({ external_id: "S1", first_name: "Sam", last_name: "Std", status: "active" });
    const counts = await runJson<{ created: number }>([...db, "import", "--org", org, "--kind", "employees", "-"], { stdin: `${line}\n` });
    expect(counts.created).toBe(1);
  });

  test("a missing file exits 1", async () => {
    const org = await newOrg();
    const result = await runCli([...db, "import", "--org", org, "--kind", "employees", join(scratch.dir, "nope.jsonl")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("nope.jsonl");
  });
});
