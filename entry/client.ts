/**
 * `leaveapi/client`: the official client for integrators (Node 20, Bun, Deno): token
 * reuse, retries, paging and incremental sync done right.
 */
export * from "../client/index.ts";
