/**
 * Files imported `with { type: "text" }`: Bun hands over their content as a string (and
 * `bun build --compile` embeds it), whatever the file would be as a module.
 */
declare module "@scalar/api-reference/browser/standalone.js" {
  const source: string;
  export default source;
}
