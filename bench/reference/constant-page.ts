/**
 * R0, the HTTP limit: `Bun.serve` answering every request with the same bytes, those of a
 * representative employees page. Nothing leaveapi does per request can be faster than
 * this on the same machine, so the other figures are read as fractions of it.
 *
 *   bun bench/reference/constant-page.ts PAGE_FILE   # prints its URL on stdout
 */
const body = await Bun.file(process.argv[2]!).bytes();
const headers = { "Content-Type": "application/json", "Cache-Control": "no-store" };
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(body, { headers }) });
console.log(`reference serving http://127.0.0.1:${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
export {};
