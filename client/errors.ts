/**
 * The one error the client throws for anything the API (or the network) refused. It
 * carries the API's error body (docs/api.md, "Errors") so callers can branch on `status` and
 * `error`, and show `error_description`, which is written for a person.
 */

export class LeaveApiError extends Error {
  override name = "LeaveApiError";
  /** The HTTP status; 0 when no response arrived (`error` is then `network_error`). */
  readonly status: number;
  /** The API's error code, such as `invalid_token` or `too_many_requests`. */
  readonly error: string;
  readonly error_description: string;
  /** The parameter at fault, on a 400 about one. */
  readonly param: string | undefined;
  /** Seconds the server asked to wait (429, 503), when it said. */
  readonly retryAfter: number | undefined;
  /** The response's `X-Request-Id`: quote it when asking the API's operator about a failure. */
  readonly requestId: string | undefined;

  constructor(fields: {
    status: number;
    error: string;
    error_description: string;
    param?: string;
    retryAfter?: number;
    requestId?: string;
    cause?: unknown;
  }) {
    super(
      `${fields.error_description} (${fields.status === 0 ? "" : `HTTP ${fields.status} `}${fields.error}${fields.param ? `, param ${fields.param}` : ""})`,
      { cause: fields.cause },
    );
    this.status = fields.status;
    this.error = fields.error;
    this.error_description = fields.error_description;
    this.param = fields.param;
    this.retryAfter = fields.retryAfter;
    this.requestId = fields.requestId;
  }
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Reads a failed response into a LeaveApiError. A body that is not the API's JSON error
 * (a proxy's HTML page, say) still gives one, with `error` `unexpected_response`.
 */
export async function errorFromResponse(res: Response, retryAfter?: number): Promise<LeaveApiError> {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(await res.text());
    if (parsed !== null && typeof parsed === "object") body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: described below from the status alone.
  }
  return new LeaveApiError({
    status: res.status,
    error: text(body.error) ?? "unexpected_response",
    error_description: text(body.error_description) ?? `The server answered HTTP ${res.status} without an API error body.`,
    param: text(body.param),
    retryAfter,
    requestId: res.headers.get("x-request-id") ?? undefined,
  });
}

/** A request that never got an answer (refused connection, DNS, TLS). */
export function networkError(url: string, cause: unknown): LeaveApiError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new LeaveApiError({
    status: 0,
    error: "network_error",
    error_description: `No answer from ${new URL(url).origin}: ${reason}`,
    cause,
  });
}
