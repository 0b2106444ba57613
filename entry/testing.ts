/**
 * `leaveapi/testing`: the contracts a store must pass, for a host's own test runner
 * (bun:test, vitest, jest): `runStoreContract`, every Store, with the fixture its `create`
 * receives; `runAdminStoreContract`, a store that also implements AdminStore (organisations,
 * API access, clients, imports), from an empty, migrated store.
 *
 *   import { describe, test, expect } from "vitest";
 *   runStoreContract({ name: "our tables", create: async (fixture) => … }, { describe, test, expect });
 *   runAdminStoreContract({ name: "our tables", create: async () => … }, { describe, test, expect });
 *
 * And one builder per record, in each form a test needs (the record, the ImportWriter's
 * input, the API's JSON, a record of StoreContents), whose defaults follow the record's
 * declared fields, so a host's tests keep compiling when leaveapi adds an optional field.
 */
export {
  runStoreContract,
  type ContractFramework,
  type ContractMatchers,
  type StoreContractOptions,
  type StoreUnderTest,
} from "../testing/store-contract.ts";
export {
  runAdminStoreContract,
  type AdminStoreContractOptions,
  type AdminStoreUnderTest,
} from "../testing/admin-store-contract.ts";
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
export {
  aClosureDay,
  aClosureDayInput,
  aFullEmployee,
  aFullEmployeeInput,
  aFullLeaveBooking,
  aFullLeaveBookingInput,
  aFullStoredBooking,
  aFullStoredEmployee,
  aLeaveBooking,
  aLeaveBookingInput,
  aLeaveBookingJson,
  aLeaveType,
  anEmployee,
  anEmployeeInput,
  anEmployeeJson,
  aStoredBooking,
  aStoredClosureDay,
  aStoredEmployee,
  aStoredLeaveType,
  BUILT_AT,
  fieldsLeftNull,
} from "../testing/record-builders.ts";
