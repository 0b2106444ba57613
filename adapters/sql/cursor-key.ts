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
        const fresh = base64urlEncode(ctx.options.randomBytes(32));
        // Insert-if-absent then read: two instances starting together agree on one key.
        await ctx.db
          .insertInto("installation")
          .values({ name: "cursor_key", value: fresh })
          .onConflict((oc) => oc.column("name").doNothing())
          .execute();
        const row = await ctx.db.selectFrom("installation").select("value").where("name", "=", "cursor_key").executeTakeFirstOrThrow();
        key = base64urlDecode(row.value) ?? undefined;
        if (!key) throw new Error("The installation's cursor key is corrupt.");
        return key;
      });
    },
  };
}
