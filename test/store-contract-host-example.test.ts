/**
 * The host-owned Store example (examples/host-store/): a Store over a differently shaped
 * schema, raw SQL on bun:sqlite, proved by the same contract as ours.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHostSchema, publicIdFor } from "../examples/host-store/host-schema.ts";
import { createHostStore } from "../examples/host-store/host-store.ts";
import { writeFixtureToHostSchema } from "../examples/host-store/write-fixture.ts";
import { isUuid } from "../lib/ids.ts";
import { runStoreContract } from "../testing/store-contract.ts";

function hostDatabase(): Database {
  const db = new Database(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  createHostSchema(db);
  return db;
}

runStoreContract(
  {
    name: "host-owned schema (examples/host-store)",
    create: async (fixture) => {
      const db = hostDatabase();
      writeFixtureToHostSchema(db, fixture);
      const store = createHostStore(db);
      return {
        store,
        // As the host's own admin code would: a plain update (the schema's trigger revokes the tokens).
        setApiEnabled: async (id, on) => db.query("update companies set api_access = ? where public_id = ?").run(on ? 1 : 0, id),
        dispose: async () => {
          await store.close();
          db.close();
        },
      };
    },
  },
  { describe, test, expect },
);

describe("host-owned Store example beyond the contract", () => {
  test("a row the host inserts its own way is served under its derived, stable public id", async () => {
    const db = hostDatabase();
    const store = createHostStore(db);
    const { company_no } = db
      .query<{ company_no: number }, []>(
        "insert into companies (public_id, name, api_access, created) values ('pending', 'Host Co', 1, '2026-01-01T00:00:00.000Z') returning company_no",
      )
      .get()!;
    const companyId = publicIdFor("companies", company_no);
    db.query("update companies set public_id = ? where company_no = ?").run(companyId, company_no);
    const { staff_no } = db
      .query<{ staff_no: number }, [number]>(`insert into staff (public_id, company_no, given_name, state, modified)
        values ('pending', ?, 'Grace', 'active', '2026-02-01T08:00:00.000Z') returning staff_no`)
      .get(company_no)!;
    const staffId = publicIdFor("staff", staff_no);
    db.query("update staff set public_id = ? where staff_no = ?").run(staffId, staff_no);

    expect(isUuid(staffId)).toBe(true);
    expect(staffId[14]).toBe("5");
    expect(publicIdFor("staff", staff_no)).toBe(staffId);
    expect(publicIdFor("absences", staff_no)).not.toBe(staffId);
    expect(await store.findEmployee(companyId, staffId)).toMatchObject({
      id: staffId,
      first_name: "Grace",
      status: "active",
      updated_at: Date.parse("2026-02-01T08:00:00.000Z"),
    });
    db.close();
  });

  test("a closed store, or a database that cannot be reached, answers StoreUnavailableError (503)", async () => {
    const db = hostDatabase();
    const store = createHostStore(db);
    await store.close();
    await expect(store.ping()).rejects.toMatchObject({ name: "StoreUnavailableError" });
    db.close();

    // Another connection holds the file's exclusive lock, and this one will not wait.
    const dir = mkdtempSync(join(tmpdir(), "leaveapi-host-"));
    const holder = new Database(join(dir, "host.db"));
    createHostSchema(holder);
    holder.exec("BEGIN EXCLUSIVE");
    const waiting = new Database(join(dir, "host.db"));
    waiting.exec("PRAGMA busy_timeout = 0");
    const busy = createHostStore(waiting);
    await expect(busy.listEmployees({ organisationId: "x", filters: {}, limit: 1 })).rejects.toMatchObject({ name: "StoreUnavailableError" });
    holder.exec("ROLLBACK");
    expect(await busy.listEmployees({ organisationId: "x", filters: {}, limit: 1 })).toEqual([]);
    waiting.close();
    holder.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
