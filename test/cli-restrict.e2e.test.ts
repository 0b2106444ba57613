/**
 * `leaveapi credentials create … --departments --calendars --fields`, `credentials restrict`
 * and `credentials list` through the real command line (docs/cli.md, "credentials"): a
 * restriction is stored with the credentials, shown by `list` in text and JSON, replaced
 * and cleared by `restrict`, and bad lists are usage errors naming the flag.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli, runJson, scratchDir } from "./cli-harness.ts";

let scratch: ReturnType<typeof scratchDir>;
let db: string[];
let org: string;

beforeAll(async () => {
  scratch = scratchDir();
  db = ["--db", join(scratch.dir, "restrict.sqlite")];
  org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Acme"])).id;
});
afterAll(() => scratch.dispose());

interface Listed {
  client_id: string;
  restriction: { departments: string[] | null; calendars: string[] | null; fields: string[] | null; set_at: string } | null;
}

describe("credentials restrictions", () => {
  test("create stores one, list shows it, restrict replaces and clears it", async () => {
    const created = await runJson<Listed & { client_secret: string }>([
      ...db,
      ...["credentials", "create", "--org", org, "--departments", "Sales, Ops", "--fields", "last_name,first_name"],
    ]);
    expect(created.restriction).toMatchObject({ departments: ["Sales", "Ops"], calendars: null, fields: ["id", "first_name", "last_name", "updated_at"] });
    const plain = await runJson<Listed>([...db, "credentials", "create", "--org", org]);
    expect(plain.restriction).toBeNull();

    const text = await runCli([...db, "credentials", "list", "--org", org]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${created.client_id}  live`);
    expect(text.stdout).toContain("restricted to departments Sales,Ops; fields id,first_name,last_name,updated_at");
    expect(text.stdout.split("\n").find((l) => l.startsWith(plain.client_id))).not.toContain("restricted");

    const restricted = await runJson<Listed>([...db, "credentials", "restrict", created.client_id, "--calendars", "GB-ENG,DE"]);
    expect(restricted.restriction).toMatchObject({ departments: null, calendars: ["GB-ENG", "DE"], fields: null });
    const listed = await runJson<Listed[]>([...db, "credentials", "list", "--org", org]);
    expect(listed.find((c) => c.client_id === created.client_id)!.restriction).toMatchObject({ calendars: ["GB-ENG", "DE"] });

    const cleared = await runCli([...db, "credentials", "restrict", created.client_id, "--clear"]);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain("restriction cleared");
    const after = await runJson<Listed[]>([...db, "credentials", "list", "--org", org]);
    // Cleared, it keeps the instant, which still sends older syncs to a full read.
    expect(after.find((c) => c.client_id === created.client_id)!.restriction).toMatchObject({ departments: null, calendars: null, fields: null });
  });

  test("bad lists and flags are usage errors that name what is wrong; an unknown client fails", async () => {
    const cases: [string[], string][] = [
      [["create", "--org", org, "--calendars", "gb"], "--calendars: 'gb' is not a calendar key"],
      [["create", "--org", org, "--fields", "email"], "--fields: 'email' is not an employee field"],
      [["create", "--org", org, "--departments", "Sales,,Ops"], "--departments takes a comma-separated list with no empty item"],
      [["restrict", "svcc_000000000000000000000000"], "give --departments, --calendars or --fields, or --clear"],
      [["restrict", "svcc_000000000000000000000000", "--clear", "--fields", "first_name"], "--clear takes no"],
    ];
    for (const [args, message] of cases) {
      const result = await runCli([...db, "credentials", ...args]);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain(message);
    }
    const unknown = await runCli([...db, "credentials", "restrict", "svcc_000000000000000000000000", "--clear"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no credentials with client id svcc_000000000000000000000000");
  });
});
