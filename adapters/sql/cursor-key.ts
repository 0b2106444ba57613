/** The installation's cursor key in the SQL store: created once, shared by every instance. */
import { base64urlDecode, base64urlEncode } from "../../lib/encoding.ts";
import type { Store } from "../../lib/store.ts";
import type { SqlContext } from "./sql-context.ts";

export function cursorKey(ctx: SqlContext): Pick<Store, "installationKey"> {
  let key: Uint8Array | undefined;
  return {
    async installationKey() {
      if (key) return key;
      return ctx.guard(async () => {
        const stored = () => ctx.db.selectFrom("installation").select("value").where("name", "=", "cursor_key").executeTakeFirst();
        // Read first: a server started while an import holds the SQLite file's write lock
        // must not wait for it to answer its first page.
        let row = await stored();
        if (!row) {
          // Insert-if-absent then read: two instances starting together agree on one key.
          const fresh = base64urlEncode(ctx.options.randomBytes(32));
          await ctx.db
            .insertInto("installation")
            .values({ name: "cursor_key", value: fresh })
            .onConflict((oc) => oc.column("name").doNothing())
            .execute();
          row = await stored();
        }
        if (!row) throw new Error("The installation's cursor key could not be stored.");
        key = base64urlDecode(row.value) ?? undefined;
        if (!key) throw new Error("The installation's cursor key is corrupt.");
        return key;
      });
    },
  };
}
