/**
 * The error model: every request error is one `ApiError`, and every code the API can
 * answer with is defined here, so the status, body and headers of an error are decided
 * in one place (docs/api.md, "Errors").
 */

/**
 * Every `error` code the API answers with; the status goes with the situation (docs/api.md,
 * "Statuses and codes").
 */
export const ERROR_CODES = [
  "invalid_request",
  "unsupported_grant_type",
  "unauthorized_client",
  "invalid_scope",
  "invalid_client",
  "invalid_token",
  "insufficient_scope",
  "not_found",
  "method_not_allowed",
  "too_many_requests",
  "server_error",
  "temporarily_unavailable",
  "sync_expired",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  error: string;
  error_description: string;
  param?: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, description: string, options: { param?: string; headers?: Record<string, string> } = {}) {
    super(description);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.param = options.param;
    this.headers = options.headers ?? {};
  }

  get body(): ErrorBody {
    const body: ErrorBody = { error: this.code, error_description: this.message };
    if (this.param !== undefined) body.param = this.param;
    return body;
  }
}

/** A 400 `invalid_request` that names the parameter at fault. */
export function invalidParam(param: string, description: string): ApiError {
  return new ApiError(400, "invalid_request", description, { param });
}

export function invalidRequest(description: string): ApiError {
  return new ApiError(400, "invalid_request", description);
}

export function notFound(description = "No resource exists at this path."): ApiError {
  return new ApiError(404, "not_found", description);
}

export function methodNotAllowed(allowed: readonly string[]): ApiError {
  return new ApiError(405, "method_not_allowed", `This path answers only ${allowed.join(", ")}.`, {
    headers: { Allow: allowed.join(", ") },
  });
}

export function tooManyRequests(retryAfterSeconds: number, description: string): ApiError {
  return new ApiError(429, "too_many_requests", description, {
    headers: { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
}

/**
 * A 410 for a deletions feed asked about a time before the oldest tombstone kept
 * (docs/api.md, "GET /v1/deletions"): what was deleted since then cannot be told, so the
 * client must read everything again.
 */
export function syncExpired(retentionDays: number): ApiError {
  return new ApiError(
    410,
    "sync_expired",
    `Deletions are kept for ${retentionDays} days and 'updated_since' is older than that; do a full read (without updated_since) and replace your copy, then sync from its start.`,
    { param: "updated_since" },
  );
}

/**
 * What a store cannot do when it throws StoreUnavailableError: serve reads (the default),
 * or issue and check tokens (a SQLite tokens file gone, replaced, read-only or damaged).
 * `/healthz` names it in its 503 (docs/api.md, "Public endpoints").
 */
export type UnavailablePart = "reads" | "token_issuance";

/** Thrown by a store when the database cannot be reached; answered as 503. */
export class StoreUnavailableError extends Error {
  readonly part: UnavailablePart;
  constructor(message = "The data store is unreachable.", options?: { cause?: unknown; part?: UnavailablePart }) {
    super(message, options);
    this.name = "StoreUnavailableError";
    this.part = options?.part ?? "reads";
  }
}

/**
 * `leaveapi/sqlite` was opened on a runtime without a SQLite it can use (Node 20 has no
 * node:sqlite); the message says what to do instead. A host's configuration error, not an
 * outage: nothing to retry.
 */
export class SqliteUnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SqliteUnsupportedError";
  }
}

export function storeUnavailable(): ApiError {
  return new ApiError(503, "temporarily_unavailable", "The service cannot reach its data store; retry shortly.", {
    headers: { "Retry-After": "5" },
  });
}

/**
 * A 501 from an endpoint whose data the server's Store does not provide: the endpoint came
 * with an optional Store method the host's own store predates (docs/embedding.md, "How the
 * Store interface changes"). Nothing to retry; the server's other endpoints are unaffected.
 */
export function notProvidedByStore(): ApiError {
  return new ApiError(501, "server_error", "This endpoint is not available on this server: its data store does not provide what it reads.");
}

export function serverError(): ApiError {
  return new ApiError(500, "server_error", "The server failed to answer this request; it has been logged.");
}
