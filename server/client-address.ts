/**
 * The address the token endpoint's per-address limit counts, shared by every runtime's
 * front (the Bun server, the Node bridge), so a proxy is trusted the same way everywhere.
 */

/** Longer than any IPv6 address with a zone: anything longer is not an address a proxy wrote. */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The socket's address, or, only behind a proxy the operator trusts, the last
 * X-Forwarded-For entry: that is the one the proxy appended, whereas earlier entries are
 * whatever the client chose to send.
 */
export function clientAddress(req: Request, socketAddress: string | undefined, trustProxy: boolean): string | undefined {
  if (!trustProxy) return socketAddress;
  const last = req.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
  return last && last.length <= MAX_ADDRESS_LENGTH ? last : socketAddress;
}
