/**
 * The suites `npm test` runs a second time on the real Postgres server: every test file
 * whose store comes from test-stores.ts's `openTestStore`, directly or through
 * `createWorld` and `freshWorld`. Paths are relative to the repository root.
 * test-wiring.test.ts fails when a file opens such a store but is missing here, or is
 * listed here but is missing or never opens one, so no suite skips Postgres in silence.
 */
export const POSTGRES_SUITES: readonly string[] = [
  "test/api-switch-revokes-tokens.e2e.test.ts",
  "test/base-path.test.ts",
  "test/bearer-auth.test.ts",
  "test/client-handler.test.ts",
  "test/client-usage.test.ts",
  "test/compression.test.ts",
  "test/deleted-records-migration.test.ts",
  "test/leave-class-spans-migration.test.ts",
  "test/deletions.test.ts",
  "test/deletion-sweep.test.ts",
  "test/docs-page.test.ts",
  "test/employees.test.ts",
  "test/fuzz-endpoints.e2e.test.ts",
  "test/fuzz-regressions.test.ts",
  "test/holiday-worker.e2e.test.ts",
  "test/holidays.test.ts",
  "test/http-behaviour.test.ts",
  "test/import-limits.e2e.test.ts",
  "test/import-problem-cap.e2e.test.ts",
  "test/import-maps.test.ts",
  "test/import.test.ts",
  "test/leave-requests.test.ts",
  "test/leave-span-classes.test.ts",
  "test/metrics.e2e.test.ts",
  "test/oauth-discovery-base-path.e2e.test.ts",
  "test/openapi.test.ts",
  "test/publication-lag.test.ts",
  "test/query-params.test.ts",
  "test/rate-event-sweep.test.ts",
  "test/read-rate-limit.test.ts",
  "test/record-text.test.ts",
  "test/rate-limits.test.ts",
  "test/request-guards.test.ts",
  "test/request-limits.test.ts",
  "test/secrets-at-rest.test.ts",
  "test/smoke.test.ts",
  "test/tenant-isolation.e2e.test.ts",
  "test/token-endpoint.test.ts",
  "test/token-grant.test.ts",
  "test/token-request-syntax.test.ts",
];
