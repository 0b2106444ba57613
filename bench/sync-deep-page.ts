/**
 * A sync's deep page: the employees list with `updated_since` and a cursor near the end,
 * against the same page with the cursor alone, on SQLite with 50,000 employees. The two
 * should cost the same (adapters/sql/read-queries.ts, sinceNotImpliedByCursor); before
 * that fix the first read every row from \`since\` to the cursor again (bench/RESULTS.md,
 * "Figures behind design choices").
 *
 *   bun bench/sync-deep-page.ts
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { EmployeeInput } from "../lib/admin-store.ts";
import { EMPLOYEE_FIELDS, inputKeys, nullFilled } from "../lib/record-fields.ts";
const file = join(tmpdir(), `leaveapi-sync-deep-page-${process.pid}.sqlite`);
for (const s of ["", "-wal", "-shm"])
  await Bun.file(file + s)
    .delete()
    .catch(() => {});
const store = openSqliteStore({ filename: file });
await store.migrate();
const org = crypto.randomUUID();
await store.createOrganisation({ id: org, name: "X", api_enabled: true, created_at: 0 });
const N = 50_000;
// The nullable fields left out are null (nullFilled), so a field added to the list needs nothing here.
const rows = Array.from({ length: N }, () =>
  nullFilled<EmployeeInput>(inputKeys(EMPLOYEE_FIELDS), {
    id: crypto.randomUUID(),
    first_name: "A",
    last_name: "B",
    status: "active",
    start_date: "2020-01-01",
  }),
);
await store.runImport(async (w) => {
  for (let i = 0; i < N; i += 1000) await w.upsertEmployees(org, rows.slice(i, i + 1000), 1_000_000 + i);
});
const all = await store.listEmployees({ organisationId: org, filters: {}, limit: N });
const deep = all[N - 200]!;
const t = (label: string, q: Parameters<typeof store.listEmployees>[0]) => {
  return (async () => {
    for (let i = 0; i < 20; i++) await store.listEmployees(q);
    const s = performance.now();
    for (let i = 0; i < 200; i++) await store.listEmployees(q);
    console.log(label, ((performance.now() - s) / 200).toFixed(3), "ms");
  })();
};
const after = { updatedAt: deep.updated_at, id: deep.id };
await t("cursor only, deep", { organisationId: org, filters: {}, limit: 100, after });
await t("since + cursor, deep", { organisationId: org, filters: { updated_since: 1_000_000 }, limit: 100, after });
await store.close();
for (const s of ["", "-wal", "-shm"])
  await Bun.file(file + s)
    .delete()
    .catch(() => {});
