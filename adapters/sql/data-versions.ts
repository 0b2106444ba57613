/**
 * The organisations' data versions (lib/store.ts, `dataVersion`; docs/api.md, "Conditional
 * reads"): what an ETag is made from, so that a client polling an unchanged organisation is
 * answered 304 without its page being read.
 *
 * Every import that commits, in its own transaction, gives each organisation it named a
 * fresh random version (an erasure is an import too): the records, tombstones, closure days
 * and imported public holidays of an organisation change nowhere else. A publication row
 * (published-stamps.ts) would not do: two imports given the same `now` share one, and an
 * import of public holidays alone writes none. Random, not counted: a database restored from
 * an older backup must not show again a version a client saw with other data.
 */
import type { Kysely } from "kysely";
import { base64urlEncode } from "../../lib/encoding.ts";
import type { Store } from "../../lib/store.ts";
import { defineQuery } from "./compiled-queries.ts";
import type { SqlContext } from "./sql-context.ts";
import type { Tables } from "./tables.ts";

/** What an organisation no import has written to yet answers: no version written is ever this. */
const NEVER_WRITTEN = "none";

/** Inside an import's transaction: a fresh version for each organisation, committed with its records. */
export async function newDataVersions(conn: Kysely<Tables>, organisationIds: Iterable<string>, randomBytes: (length: number) => Uint8Array): Promise<void> {
  for (const organisationId of organisationIds) {
    const version = base64urlEncode(randomBytes(16));
    await conn
      .insertInto("data_versions")
      .values({ organisation_id: organisationId, version })
      .onConflict((oc) => oc.column("organisation_id").doUpdateSet({ version }))
      .execute();
  }
}

const versionQuery = defineQuery<{ organisationId: string }>()((s, db) =>
  db.selectFrom("data_versions").select("version").where("organisation_id", "=", s.organisationId),
);

/**
 * The read, on the connection the pages are read from (a replica when there is one): a
 * version read there is never newer than the page read after it, so an ETag never claims
 * a page it did not answer.
 */
export function dataVersions(ctx: SqlContext): Pick<Store, "dataVersion"> {
  return {
    dataVersion: (organisationId) =>
      ctx.guard(async () => {
        const [row] = await ctx.replica.rows(versionQuery, { organisationId });
        return row?.version ?? NEVER_WRITTEN;
      }),
  };
}
