/**
 * `leaveapi/memory`: the in-memory Store, the reference implementation of the Store
 * contract and a template for a Store over a host's own tables. One process only: its data,
 * tokens and rate limits are neither persisted nor shared.
 */
export { createMemoryStore, type MemoryStore } from "../adapters/memory-store.ts";
