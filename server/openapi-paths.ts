/**
 * The paths of the OpenAPI document: each route of the table (server/routes.ts) with its
 * operation. Parameters come from the valibot schemas that validate them
 * (lib/request-params.ts); bodies name the component schemas generated from
 * lib/api-schemas.ts.
 */
import { ROUTES } from "./routes.ts";

export function buildPaths(): Record<string, Record<string, object>> {
  return Object.fromEntries(ROUTES.map((route) => [route.path, { [route.kind === "plain" ? route.method : "get"]: route.operation }]));
}
