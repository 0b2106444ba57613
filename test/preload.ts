/**
 * Loaded before every test file (bunfig.toml): stores opened by a test are closed after
 * it, and the Postgres run's database is dropped at the end.
 */
import { afterAll, afterEach } from "bun:test";
import { closeTestStores, dropTestRunDatabase } from "./test-stores.ts";

afterEach(closeTestStores);
afterAll(async () => {
  await closeTestStores();
  await dropTestRunDatabase();
}, 60_000);
