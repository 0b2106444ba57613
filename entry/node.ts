/**
 * `leaveapi/node`: the handler as a `node:http` request listener, for plain Node servers,
 * Express and Fastify (`toNodeListener(createHandler({ store }))`), and as a `clientError`
 * listener for what Node's parser refuses (`toNodeClientErrorListener(handler)`).
 */
export { toNodeListener, type NodeListener, type NodeListenerOptions } from "../adapters/node/http.ts";
export { toNodeClientErrorListener } from "../adapters/node/client-error.ts";
