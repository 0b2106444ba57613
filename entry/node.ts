/**
 * `leaveapi/node`: the handler as a `node:http` request listener, for plain Node servers,
 * Express and Fastify (`toNodeListener(createHandler({ store }))`).
 */
export { toNodeListener, type NodeListener, type NodeListenerOptions } from "../adapters/node-http.ts";
