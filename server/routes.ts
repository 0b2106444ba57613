/**
 * The route table: every route the handler serves, in the order the OpenAPI document lists
 * them. The router (handler.ts), the document's paths (openapi-paths.ts, and so
 * openapi.json) and the tests' list of routes are all made from it; a data endpoint is an
 * entry of server/data-routes.ts (ARCHITECTURE.md, "How to add an endpoint").
 */
import { DATA_ROUTES } from "./data-routes.ts";
import type { Route } from "./route-types.ts";
import { SERVICE_ROUTES, TOKEN_ROUTE } from "./service-routes.ts";

export const ROUTES: readonly Route[] = [TOKEN_ROUTE, ...DATA_ROUTES, ...SERVICE_ROUTES];
