/**
 * The Store contract, written once: every promise `lib/store.ts` documents, checked against
 * any implementation. Each store's test file is a few lines that call `runStoreContract`;
 * a host application proves its own Store the same way. The test framework is passed in
 * (bun:test, vitest or jest) and only common jest-style matchers are used.
 *
 * Its parts: tokens and rate limits (contract-tokens.ts), the lists and their filters
 * (contract-lists.ts), deletions and calendars (contract-calendars.ts), the reads of
 * restricted credentials (contract-restricted.ts), every field written and read back
 * (contract-round-trip.ts), over what
 * contract-kit.ts gives each.
 */
import { calendarContract } from "./contract-calendars.ts";
import { contractKit, type ContractFramework, type StoreContractOptions } from "./contract-kit.ts";
import { listContract } from "./contract-lists.ts";
import { restrictedContract } from "./contract-restricted.ts";
import { roundTripContract } from "./contract-round-trip.ts";
import { tokenContract } from "./contract-tokens.ts";

export type { ContractFramework, ContractMatchers, StoreContractOptions, StoreUnderTest } from "./contract-kit.ts";

export function runStoreContract(options: StoreContractOptions, framework: ContractFramework): void {
  const kit = contractKit(options, framework);
  framework.describe(`Store contract: ${options.name}`, () => {
    tokenContract(kit);
    listContract(kit);
    calendarContract(kit);
    restrictedContract(kit);
    roundTripContract(kit);
  });
}
