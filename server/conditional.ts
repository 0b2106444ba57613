/**
 * Conditional reads on the data endpoints (docs/api.md, "Conditional reads"; the tag itself
 * is lib/conditional-reads.ts): each 200 carries an `ETag`, and a request whose
 * `If-None-Match` names the current one is answered 304 once it has passed every check a
 * 200 would (authentication, scope, parameters, the deletions feed's horizon), before its
 * page is read and before its read budget is spent. A store without `dataVersion` gets
 * neither: no tag, and `If-None-Match` is ignored.
 */
import { FIELD_LISTS, entityTag, matchesWeakly, parseIfNoneMatch, type IfNoneMatch, type TagHashes, type TaggedRequest } from "../lib/conditional-reads.ts";
import type { Store } from "../lib/store.ts";

export interface ConditionalReads {
  /** What the request's If-None-Match asks, or nothing when the store keeps no data version (then no answer is conditional). */
  asked(req: Request): IfNoneMatch;
  /** The current tag of the answer to `request`, or null when the store keeps no data version. Read before the page, never after. */
  tagOf(request: TaggedRequest): Promise<string | null>;
}

const NOTHING_ASKED: IfNoneMatch = { kind: "none" };

export function createConditionalReads(store: Store, hashes: TagHashes, release: string): ConditionalReads {
  const representation = `${FIELD_LISTS};${release}`;
  if (!store.dataVersion) return { asked: () => NOTHING_ASKED, tagOf: async () => null };
  return {
    asked: (req) => parseIfNoneMatch(req.headers.get("if-none-match")),
    async tagOf(request) {
      // Both before the page is read: a version read after it could be newer than what it shows.
      const [key, version] = await Promise.all([store.installationKey(), store.dataVersion!(request.organisationId)]);
      return entityTag(key, version, request, representation, hashes);
    },
  };
}

export { matchesWeakly };

/**
 * The 304: the headers the 200 would carry that describe it (RFC 9110 §15.4.5: its ETag
 * and Vary; Cache-Control and the rest are added to every answer by `finish`), no body,
 * and no Content-Length or Content-Type, which would describe a body not sent. `log` is
 * the request's log entry in the making.
 */
export function notModified(tag: string, log: { records?: number }): Response {
  // No record was sent (the request log counts what each client received).
  log.records = 0;
  return new Response(null, { status: 304, headers: { ETag: tag, Vary: "Accept-Encoding" } });
}
