/**
 * How every data route (server/data-routes.ts) is answered: the method, the Bearer token
 * and its scope, the Store capability the route needs, the conditional read and the read
 * budget, then the route's own parameters and read, coded as the client accepts.
 */
import { methodNotAllowed, notProvidedByStore } from "../lib/errors.ts";
import type { ReadBudget } from "../lib/read-budget.ts";
import { authenticate } from "./bearer.ts";
import { codedJson } from "./compression.ts";
import { matchesWeakly, notModified, type ConditionalReads } from "./conditional.ts";
import { methodsOf, type DataCall, type DataRoute, type RequestState, type RouteContext, type Routed } from "./route-types.ts";

/** Throws the 405 unless the request's method is one the route answers. */
export function checkMethod(methods: readonly string[], state: RequestState): void {
  if (!methods.includes(state.method)) throw methodNotAllowed(methods);
}

export function serveData(route: DataRoute, context: RouteContext, conditional: ConditionalReads, readBudget: ReadBudget) {
  const methods = methodsOf(route);
  return async (req: Routed, state: RequestState): Promise<Response> => {
    state.route = route.path;
    checkMethod(methods, state);
    const scope = route.scopeOf?.(state.url) ?? route.scopes[0];
    const grant = await authenticate(req.request, context.store, scope, state.now, context.sha256Hex);
    state.organisationId = grant.organisation_id;
    state.clientId = grant.client_id;
    // Nothing a request says makes a missing capability appear, so this comes before its parameters.
    if (route.needs !== undefined && context.store[route.needs] === undefined) throw notProvidedByStore();
    const call: DataCall = { organisationId: grant.organisation_id, restriction: grant.restriction, url: state.url, params: req.params, now: state.now };
    // A tag If-None-Match names is tested before the budget is spent (server/conditional.ts).
    const asked = conditional.asked(req.request);
    if (asked.kind !== "tags") readBudget.spend(grant.client_id, state.now);
    let read = asked.kind === "tags" ? undefined : route.prepare(call, context);
    const tag = await conditional.tagOf({ organisationId: grant.organisation_id, clientId: grant.client_id, restriction: grant.restriction, url: state.url });
    if (tag !== null && matchesWeakly(asked, tag)) {
      // A tag is given only with a 200 of this very URL, whose parameters passed then.
      route.stillCurrent?.(call, context);
      return notModified(tag, state);
    }
    read ??= route.prepare(call, context);
    if (asked.kind === "tags") readBudget.spend(grant.client_id, state.now);
    const body = await read();
    // `*` matches any current answer (RFC 9110 §13.1.2), known once it has been read.
    if (tag !== null && asked.kind === "any") return notModified(tag, state);
    state.records = body.records;
    const response = await codedJson(200, body.text, req.request.headers.get("accept-encoding"), context.encoders);
    if (tag !== null) response.headers.set("ETag", tag);
    return response;
  };
}
