/** What a change notification names (docs/api.md, "Change notifications"): its type, and the resources a sync reads, in this order. */
export const DATA_CHANGED = "leaveapi.data.changed";
/** What `leaveapi webhooks test` sends: nothing changed, the receiver is only checked. */
export const WEBHOOK_TEST = "leaveapi.webhook.test";
export const CHANGED_RESOURCES = ["employees", "leave-requests", "deletions"] as const;
export type ChangedResource = (typeof CHANGED_RESOURCES)[number];
