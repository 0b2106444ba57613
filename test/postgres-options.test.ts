/** openPostgresStore's options, checked before pg is asked anything (adapters/postgres.ts). */
import { expect, test } from "bun:test";
import { openPostgresStore } from "../adapters/postgres.ts";

test("no connection string (DATABASE_URL unset) is a clear error naming what is missing, not pg's stack trace", () => {
  const missing = "openPostgresStore needs connectionString, a postgres:// URL; it was not given (is DATABASE_URL set?).";
  expect(() => openPostgresStore({ connectionString: process.env.LEAVEAPI_NO_SUCH_VARIABLE as string })).toThrow(missing);
  expect(() => openPostgresStore({ connectionString: "" })).toThrow(missing);
  expect(() => openPostgresStore({} as never)).toThrow(missing);
});
