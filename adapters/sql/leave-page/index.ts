/**
 * The leave page of the SQL store, its one entry point (README.md beside this file): the
 * store's readers of GET /v1/leave-requests, and the class spans its import writer keeps
 * so that those readers know how far back each span class reaches.
 */
export { leavePageQueries } from "./leave-page-queries.ts";
export { classSpansOf, type ClassSpans } from "./leave-span-plan.ts";
