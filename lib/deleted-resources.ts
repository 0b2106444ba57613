/** The resources the deletions feed reports on, by the path of their list endpoint (docs/api.md, "GET /v1/deletions"). */
export const DELETED_RESOURCES = ["employees", "leave-requests"] as const;
export type DeletedResource = (typeof DELETED_RESOURCES)[number];
