/**
 * The access controls of a SQLite store (adapters/sql/access-controls.ts): written into
 * the tokens file while another connection holds the data file's write lock, in effect at
 * once, and copied into the data file once the lock is free, by `leaveapi serve`'s
 * half-minute timer (scripts/serve/housekeeping.ts, driven by hand here) or the next
 * `migrate`; never the other way round, and never an older tokens file over a newer copy.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { copyControlsToDataFile } from "../adapters/sql/access-controls.ts";
import { sqlContextOf } from "../adapters/sql/sql-admin-store.ts";
import { digestSecret, mintClientId, mintClientSecret } from "../lib/credentials.ts";
import { CONTROLS_COPY_EVERY_MS, copyControlsRegularly } from "../scripts/serve/housekeeping.ts";
import { scratchDir } from "./cli-harness.ts";
import { handTimer, recordingLogger, settle } from "./sweep-timer.ts";

const scratch = scratchDir();
afterAll(() => scratch.dispose());

/** The data file's own columns, as a backup of it would hold them. */
function inDataFile(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return {
      org: db.query<{ api_enabled: number; api_version: number | null }, []>("select api_enabled, api_version from organisations").get(),
      client: db
        .query<{ revoked: number; secret_version: number | null }, []>("select revoked_at is not null as revoked, secret_version from api_clients")
        .get(),
    };
  } finally {
    db.close();
  }
}

test("controls set while the data file is locked take effect at once and reach it once the lock is free", async () => {
  const file = join(scratch.dir, "copy.sqlite");
  const store = openSqliteStore({ filename: file });
  await store.migrate();
  const orgId = crypto.randomUUID();
  await store.createOrganisation({ id: orgId, name: "Copied", api_enabled: true, created_at: Date.now() });
  const clientId = mintClientId();
  const clientSecret = mintClientSecret();
  await store.createClient({
    client_id: clientId,
    organisation_id: orgId,
    name: null,
    secret_digest: digestSecret(clientSecret),
    scopes: ["employees:read"],
    created_at: Date.now(),
    revoked_at: null,
  });

  const holder = new Database(file);
  holder.exec("BEGIN");
  holder.exec("DELETE FROM publications WHERE 0");
  try {
    expect(await store.setApiEnabled(orgId, false)).toBe(true);
    expect((await store.revokeClient(clientId, Date.now()))?.revoked_at).not.toBeNull();
    // In effect through the store at once, not yet in the data file.
    expect((await store.findOrganisation(orgId))?.api_enabled).toBe(false);
    expect((await store.findClient(clientId))?.revoked_at).not.toBeNull();
    expect(inDataFile(file)).toEqual({ org: { api_enabled: 1, api_version: null }, client: { revoked: 0, secret_version: null } });
    expect(await copyControlsToDataFile(sqlContextOf(store), 0)).toBe(false);
  } finally {
    holder.exec("ROLLBACK");
    holder.close();
  }

  const timer = handTimer();
  const logger = recordingLogger();
  copyControlsRegularly({ copy: () => copyControlsToDataFile(sqlContextOf(store), 0), logger, ...timer });
  expect(timer.state.everyMs).toBe(CONTROLS_COPY_EVERY_MS);
  expect(timer.state.unrefed).toBe(true);
  timer.state.run?.();
  await settle();
  await settle();
  expect(inDataFile(file)).toEqual({ org: { api_enabled: 0, api_version: 1 }, client: { revoked: 1, secret_version: null } });
  expect(logger.events).toEqual([]);

  // Switched on again: version 2 wins over the data file's 1, and is copied in turn.
  expect(await store.setApiEnabled(orgId, true)).toBe(true);
  expect(inDataFile(file).org).toEqual({ api_enabled: 1, api_version: 2 });
  expect((await store.findOrganisation(orgId))?.api_enabled).toBe(true);
  await store.close();
});
