/**
 * The XML of an .xlsx part, tokenised with hard limits (DECISIONS §11, "Bounded work for
 * any file"): what it holds between chunks is the unfinished tag (at most MAX_TAG_CHARS),
 * an unfinished entity reference or section end (a few characters), and the open
 * elements (at most MAX_DEPTH). Text is handed on in pieces as it comes, never gathered
 * here, so that a 150 MB text node costs what its consumer keeps of it (read-xlsx.ts keeps
 * at most 1 MiB a cell). Element names are given without their namespace prefix.
 *
 * What an .xlsx needs of XML and no more: elements, attributes, the five predefined
 * entities and character references, CDATA, comments and processing instructions
 * (skipped). A DOCTYPE is refused: no workbook has one, and it is where entity expansion
 * (the "billion laughs") would come from. Not checked: that names and characters are
 * those XML allows, and that attributes are not repeated; a close tag must match its
 * open tag.
 */

/** Elements nested deeper than this are refused (a sheet needs 6: worksheet, sheetData, row, c, is, r, t). */
export const MAX_DEPTH = 64;
/** The longest tag, `<` to `>`, attributes and all (a cell's is some 40 characters, a root's with namespaces under 2,000). */
export const MAX_TAG_CHARS = 65_536;

export type Attributes = Record<string, string>;

export interface XmlHandlers {
  open?: (name: string, attributes: Attributes) => void;
  close?: (name: string) => void;
  /** A piece of character data (entities decoded); one text node may come in several pieces. */
  text?: (text: string) => void;
}

/** Why a part's XML cannot be read: a limit passed (`limit`: the message follows "its part P"), or not well-formed (it follows "cannot be read:"). */
export class XmlProblem extends Error {
  override name = "XmlProblem";
  constructor(
    message: string,
    readonly limit = false,
  ) {
    super(message);
  }
}

const ENTITY = /&(?:#x([0-9a-fA-F]{1,6});|#([0-9]{1,7});|(amp|lt|gt|quot|apos);)|&/g;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
/** An attribute, from just after the name before it (sticky: each match must start where the last ended). */
const ATTRIBUTE = /\s+([^\s=/>"']+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const TAG_NAME = /[^\s/>]+/y;

function decode(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (whole, hex: string | undefined, decimal: string | undefined, named: string | undefined) => {
    if (named !== undefined) return NAMED[named]!;
    const code = hex !== undefined ? Number.parseInt(hex, 16) : decimal !== undefined ? Number(decimal) : -1;
    if (code < 0) throw new XmlProblem(`a "&" that starts no entity (${JSON.stringify(whole)})`);
    if (code > 0x10ffff || code === 0) throw new XmlProblem(`a character reference to no character (${whole})`);
    return String.fromCodePoint(code);
  });
}

const localName = (name: string) => {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.slice(colon + 1);
};

type State = "text" | "cdata" | "comment" | "pi";
const ENDS: Record<Exclude<State, "text">, string> = { cdata: "]]>", comment: "-->", pi: "?>" };

export class BoundedXml {
  /** What the last chunk left unfinished: a tag, an entity reference, or the start of a section's end. */
  private carry = "";
  private state: State = "text";
  private readonly open: string[] = [];
  private readonly handlers: XmlHandlers;

  constructor(handlers: XmlHandlers) {
    this.handlers = handlers;
  }

  write(chunk: string): void {
    const buffer = this.carry + chunk;
    this.carry = "";
    let at = 0;
    while (at < buffer.length) {
      if (this.state !== "text") {
        const end = ENDS[this.state];
        const found = buffer.indexOf(end, at);
        // Keep what could be the start of the end marker for the next chunk.
        const stop = found === -1 ? Math.max(at, buffer.length - (end.length - 1)) : found;
        if (this.state === "cdata" && stop > at) this.handlers.text?.(buffer.slice(at, stop));
        if (found === -1) {
          this.carry = buffer.slice(stop);
          return;
        }
        at = found + end.length;
        this.state = "text";
        continue;
      }
      const lt = buffer.indexOf("<", at);
      const textEnd = lt === -1 ? buffer.length : lt;
      if (textEnd > at) {
        let piece = buffer.slice(at, textEnd);
        if (lt === -1) {
          // An entity reference cut by the chunk's end waits for the rest of it.
          const amp = piece.lastIndexOf("&");
          if (amp !== -1 && !piece.includes(";", amp) && piece.length - amp <= 12) {
            this.carry = piece.slice(amp);
            piece = piece.slice(0, amp);
          }
        }
        if (piece !== "") this.handlers.text?.(decode(piece));
      }
      if (lt === -1) return;
      at = this.markup(buffer, lt);
      if (at === -1) {
        this.carry = buffer.slice(lt);
        if (this.carry.length > MAX_TAG_CHARS) throw tooLongTag();
        return;
      }
    }
  }

  /** The end of the document: every element must be closed. */
  close(): void {
    if (this.state !== "text" || this.carry.trim() !== "") throw new XmlProblem("it ends inside a tag, comment or section");
    if (this.open.length > 0) throw new XmlProblem(`it ends before <${this.open.at(-1)}> is closed`);
  }

  /** The markup at `lt`: handled, and where the text after it starts; -1 when the chunk ends before it does. */
  private markup(buffer: string, lt: number): number {
    const next = buffer[lt + 1];
    if (next === undefined) return -1;
    if (next === "?") {
      this.state = "pi";
      return lt + 2;
    }
    if (next === "!") {
      for (const [start, state] of [
        ["<!--", "comment"],
        ["<![CDATA[", "cdata"],
      ] as const) {
        if (buffer.startsWith(start, lt)) {
          this.state = state;
          return lt + start.length;
        }
        if (buffer.length - lt < start.length && start.startsWith(buffer.slice(lt))) return -1;
      }
      if (buffer.length - lt < 9) return -1;
      throw new XmlProblem(
        buffer.startsWith("<!DOCTYPE", lt) ? "it has a DOCTYPE, which no workbook has" : "a tag starts with <! but is no comment or CDATA section",
      );
    }
    const end = tagEnd(buffer, lt);
    if (end === -1) return -1;
    if (end - lt > MAX_TAG_CHARS) throw tooLongTag();
    if (next === "/") this.closeTag(buffer.slice(lt + 2, end).trimEnd());
    else this.openTag(buffer, lt + 1, end);
    return end + 1;
  }

  private openTag(buffer: string, start: number, end: number): void {
    TAG_NAME.lastIndex = start;
    const name = TAG_NAME.exec(buffer)?.[0];
    if (name === undefined || TAG_NAME.lastIndex > end) throw new XmlProblem(`a tag without a name at "${buffer.slice(start - 1, start + 20)}"`);
    const attributes: Attributes = {};
    let at = TAG_NAME.lastIndex;
    for (;;) {
      ATTRIBUTE.lastIndex = at;
      const match = ATTRIBUTE.exec(buffer);
      if (match === null || ATTRIBUTE.lastIndex > end) break;
      attributes[match[1]!] = decode(match[2] ?? match[3] ?? "");
      at = ATTRIBUTE.lastIndex;
    }
    const rest = buffer.slice(at, end).trim();
    const selfClosing = rest === "/";
    if (rest !== "" && !selfClosing) throw new XmlProblem(`the tag <${name}> has something that is no attribute: "${rest.slice(0, 40)}"`);
    if (this.open.length >= MAX_DEPTH) {
      throw new XmlProblem(`nests elements more than ${MAX_DEPTH} deep, which no workbook does (a damaged file or an attack)`, true);
    }
    const local = localName(name);
    this.handlers.open?.(local, attributes);
    if (selfClosing) this.handlers.close?.(local);
    else this.open.push(name);
  }

  private closeTag(name: string): void {
    const expected = this.open.pop();
    if (expected !== name) throw new XmlProblem(`</${name}> closes ${expected === undefined ? "no open element" : `<${expected}>`}`);
    this.handlers.close?.(localName(name));
  }
}

/** The `>` that ends the tag starting at `lt`, past quoted attribute values; -1 when not in `buffer`. */
function tagEnd(buffer: string, lt: number): number {
  for (let at = lt + 1; at < buffer.length; at++) {
    const code = buffer.charCodeAt(at);
    if (code === 62) return at; // >
    if (code === 34 || code === 39) {
      // " or '
      const close = buffer.indexOf(code === 34 ? '"' : "'", at + 1);
      if (close === -1) return -1;
      at = close;
    } else if (code === 60) throw new XmlProblem("a tag is not closed before the next one starts");
  }
  return -1;
}

const tooLongTag = () =>
  new XmlProblem(
    `has a tag of over ${MAX_TAG_CHARS.toLocaleString("en")} characters (attributes and all), which no workbook has (a damaged file or an attack)`,
    true,
  );
