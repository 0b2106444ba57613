/**
 * `leaveapi/testing`: `runStoreContract`, the suite every Store must pass, for a host's own
 * test runner (bun:test, vitest, jest), with the fixture its `create` receives.
 *
 *   import { describe, test, expect } from "vitest";
 *   runStoreContract({ name: "our tables", create: async (fixture) => … }, { describe, test, expect });
 */
export {
  runStoreContract,
  type ContractFramework,
  type ContractMatchers,
  type StoreContractOptions,
  type StoreUnderTest,
} from "../testing/store-contract.ts";
export { standardFixture, writeFixture } from "../testing/contract-fixture.ts";
export type {
  ContractFixture,
  FixtureBooking,
  FixtureClient,
  FixtureClosureDay,
  FixtureEmployee,
  FixtureLeaveType,
  FixturePublicHoliday,
} from "../testing/contract-fixture.ts";
