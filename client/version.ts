/**
 * The client's version, sent in its `User-Agent` (`leaveapi-client/VERSION`). Kept equal
 * to package.json's by test/client.test.ts, since client/ imports nothing outside lib/.
 */
export const CLIENT_VERSION = "0.1.0";
