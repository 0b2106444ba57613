/**
 * The bodies the API sends and the token form it takes, as valibot schemas: the one source
 * of the OpenAPI document's component schemas (server/openapi-schemas.ts converts them) and
 * of the JSON types records.ts returns. A record's fields, their order and their schemas
 * come from its declaration in record-fields.ts, which the JSON shaping reads too. Strict objects: every field the contract names is present, no other
 * (docs/api.md, "Rules for every record"). Descriptions and examples ride along as valibot
 * metadata.
 */
import * as v from "valibot";
import { ACCESS_TOKEN_PATTERN, CLIENT_ID_PATTERN, CLIENT_SECRET_PATTERN, TOKEN_LIFETIME_SECONDS } from "./credentials.ts";
import { ERROR_CODES } from "./errors.ts";
import { apiEntries, EMPLOYEE_FIELDS, HOLIDAY_ENTRY_FIELDS, LEAVE_BOOKING_FIELDS, LeaveTypeJson } from "./record-fields.ts";
import { ALL_SCOPES } from "./scopes.ts";
import { DELETED_RESOURCES } from "./deleted-resources.ts";
import { CHANGED_RESOURCES, DATA_CHANGED, WEBHOOK_TEST } from "./changed-resources.ts";

const NextCursor = v.pipe(
  v.nullable(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/))),
  v.description("Pass unchanged as `cursor`, with the same filters, for the next page; `null` on the last page."),
);
const HasMore = v.pipe(v.boolean(), v.description("True exactly when another record follows this page."));

export const Employee = v.pipe(
  v.strictObject(apiEntries(EMPLOYEE_FIELDS)),
  v.description("A current or former employee. Deleted employees are never returned."),
);

export const LeaveType = LeaveTypeJson;

export const LeaveBooking = v.pipe(v.strictObject(apiEntries(LEAVE_BOOKING_FIELDS)), v.description("An annual leave booking."));

export const HolidayEntry = v.pipe(
  v.strictObject(apiEntries(HOLIDAY_ENTRY_FIELDS)),
  v.description(
    "A public holiday (`type: public`, `calendar` set, `applies_to: calendar`) or a company closure day " +
      "(`type: company`, `calendar: null`, `applies_to` all, department or location, with `department` or `location` set to match).",
  ),
);

export const EmployeePage = v.strictObject({ has_more: HasMore, next_cursor: NextCursor, data: v.array(Employee) });
export const EmployeeResponse = v.strictObject({ data: Employee });
export const LeaveBookingPage = v.strictObject({ has_more: HasMore, next_cursor: NextCursor, data: v.array(LeaveBooking) });
export const HolidayList = v.pipe(
  v.strictObject({ data: v.array(HolidayEntry) }),
  v.description("Not paged. Ordered by date, then public before company, then calendar, then name."),
);

export const Deletion = v.pipe(
  v.strictObject({
    resource: v.pipe(v.picklist(DELETED_RESOURCES), v.description("The list endpoint that no longer returns the record.")),
    id: v.pipe(v.string(), v.uuid(), v.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), v.description("The record's id.")),
    deleted_at: v.pipe(
      v.string(),
      v.isoTimestamp(),
      v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      v.description("When the record stopped being listed: it was deleted, its employee was deleted, or its leave type stopped being annual."),
    ),
  }),
  v.description("A record its list endpoint no longer returns. Drop it from your copy."),
);
export const DeletionPage = v.strictObject({ has_more: HasMore, next_cursor: NextCursor, data: v.array(Deletion) });

const Instant = (description: string) =>
  v.pipe(v.string(), v.isoTimestamp(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), v.description(description));
const OrganisationId = v.pipe(v.string(), v.uuid(), v.description("The organisation whose data changed: the credential's."));

/** The body of a change notification (docs/api.md, "Change notifications"): thin, no record and no count. */
export const ChangeNotification = v.pipe(
  v.strictObject({
    type: v.literal(DATA_CHANGED),
    timestamp: Instant("When the change was found (the same on every attempt of one event; the signed `webhook-timestamp` header is the attempt's)."),
    data: v.strictObject({
      organisation_id: OrganisationId,
      resources: v.pipe(
        v.array(v.picklist(CHANGED_RESOURCES)),
        v.minLength(1),
        v.description("What a sync from `changed_since` finds something in: `employees`, `leave-requests`, `deletions` (either resource's feed)."),
      ),
      changed_since: Instant("Sync from here: `updated_since` for the lists and the deletions feed."),
    }),
  }),
  v.description("Something the credential can read changed. Verify the signature, then run your sync (`updated_since` as usual)."),
);

/** What `leaveapi webhooks test` sends. */
export const WebhookTest = v.pipe(
  v.strictObject({
    type: v.literal(WEBHOOK_TEST),
    timestamp: Instant("When the test was sent."),
    data: v.strictObject({ organisation_id: OrganisationId, endpoint_id: v.pipe(v.string(), v.uuid(), v.description("The endpoint tested.")) }),
  }),
  v.description("A test of the receiver from `leaveapi webhooks test`: nothing changed. Answer 2xx."),
);

/**
 * The form of POST /v1/oauth/token. Documentation only: the endpoint reads the form in the
 * order of checks docs/api.md fixes ("Order of checks").
 */
export const TokenRequest = v.pipe(
  v.looseObject({
    grant_type: v.picklist(["client_credentials"]),
    scope: v.optional(
      v.pipe(
        v.string(),
        v.description("Space-separated subset of the credentials' scopes; absent or empty grants all of them."),
        v.examples(["employees:read leave:read"]),
      ),
    ),
    client_id: v.optional(v.pipe(v.string(), v.regex(CLIENT_ID_PATTERN))),
    client_secret: v.optional(v.pipe(v.string(), v.regex(CLIENT_SECRET_PATTERN))),
  }),
  v.description("Send client_id and client_secret here only when not using HTTP Basic; never both ways at once. Other fields are ignored."),
);

export const TokenResponse = v.strictObject({
  access_token: v.pipe(v.string(), v.regex(ACCESS_TOKEN_PATTERN)),
  token_type: v.picklist(["Bearer"]),
  expires_in: v.pipe(v.number(), v.integer(), v.value(TOKEN_LIFETIME_SECONDS), v.description("Seconds; reuse the token until then.")),
  scope: v.pipe(v.string(), v.description(`The granted scopes, space-separated, in the order ${ALL_SCOPES.join(" ")}.`), v.examples([ALL_SCOPES.join(" ")])),
});

export const ErrorBody = v.strictObject({
  error: v.pipe(v.picklist(ERROR_CODES), v.description("A machine-readable code; each response says which codes it carries.")),
  error_description: v.pipe(v.string(), v.description("One sentence a person can act on.")),
  param: v.optional(v.pipe(v.string(), v.description("The parameter at fault, when there is one."))),
});

export const Health = v.strictObject({ status: v.picklist(["ok"]) });

export const AuthorizationServerMetadata = v.pipe(
  v.strictObject({
    issuer: v.pipe(v.string(), v.url()),
    token_endpoint: v.pipe(v.string(), v.url()),
    grant_types_supported: v.array(v.picklist(["client_credentials"])),
    token_endpoint_auth_methods_supported: v.array(v.picklist(["client_secret_basic", "client_secret_post"])),
    scopes_supported: v.array(v.picklist(ALL_SCOPES)),
    response_types_supported: v.pipe(v.array(v.string()), v.maxLength(0)),
  }),
  v.description("RFC 8414 authorization server metadata."),
);

/** Enough of the OpenAPI document to tell it apart; its full shape is the OpenAPI 3.1 schema's business. */
export const OpenApiDocument = v.looseObject({
  openapi: v.literal("3.1.0"),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  paths: v.looseObject({}),
  servers: v.pipe(v.array(v.looseObject({ url: v.string() })), v.minLength(1)),
});

/** Every body schema by the name the OpenAPI document gives it under components.schemas. */
export const API_SCHEMAS = {
  Employee,
  LeaveType,
  LeaveBooking,
  HolidayEntry,
  EmployeePage,
  EmployeeResponse,
  LeaveBookingPage,
  HolidayList,
  Deletion,
  DeletionPage,
  TokenRequest,
  TokenResponse,
  Error: ErrorBody,
  Health,
  AuthorizationServerMetadata,
  OpenApiDocument,
  ChangeNotification,
  WebhookTest,
} as const;

export type EmployeeJson = v.InferOutput<typeof Employee>;
export type LeaveBookingJson = v.InferOutput<typeof LeaveBooking>;
export type DeletionJson = v.InferOutput<typeof Deletion>;
export type HolidayEntryJson = v.InferOutput<typeof HolidayEntry>;
