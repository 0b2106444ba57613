/**
 * The bounded XML tokenizer of the .xlsx reader (scripts/import/xlsx-xml.ts): the same
 * events however the document is cut into chunks, and its limits.
 */
import { describe, expect, test } from "bun:test";
import { BoundedXml, MAX_DEPTH, MAX_TAG_CHARS, XmlProblem } from "../scripts/import/xlsx-xml.ts";

/** The events of `xml` fed in chunks of `size` characters, adjacent text pieces joined. */
function events(xml: string, size = xml.length): string[] {
  const out: string[] = [];
  const parser = new BoundedXml({
    open: (name, attributes) =>
      out.push(
        `<${name}${Object.entries(attributes)
          .map(([k, v]) => ` ${k}=${JSON.stringify(v)}`)
          .join("")}>`,
      ),
    close: (name) => out.push(`</${name}>`),
    text: (text) => {
      if (out.at(-1)?.startsWith("text:")) out[out.length - 1] += text;
      else out.push(`text:${text}`);
    },
  });
  for (let at = 0; at < xml.length; at += size) parser.write(xml.slice(at, at + size));
  parser.close();
  return out;
}

const problemOf = (xml: string, size?: number): XmlProblem => {
  try {
    events(xml, size);
  } catch (error) {
    expect(error).toBeInstanceOf(XmlProblem);
    return error as XmlProblem;
  }
  throw new Error("no problem");
};

describe("what it reads", () => {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a <comment> --><x:sst xmlns:x="urn:x" a=\'1 > 0\' b="&lt;&amp;&#65;&#x42;&quot;&apos;">' +
    "<si><t>a &amp; b</t></si><si/><si><t><![CDATA[<not> a tag]]]></t></si><?pi <x>?></x:sst>";
  const expected = [
    `<sst xmlns:x="urn:x" a="1 > 0" b="<&AB\\"'">`,
    "<si>",
    "<t>",
    "text:a & b",
    "</t>",
    "</si>",
    "<si>",
    "</si>",
    "<si>",
    "<t>",
    "text:<not> a tag]",
    "</t>",
    "</si>",
    "</sst>",
  ];

  test("elements, attributes (quoted either way, `>` in them), entities, CDATA; comments and processing instructions skipped", () => {
    expect(events(xml).filter((e) => e !== "text:\n")).toEqual(expected);
  });

  test("the same events whatever the chunks, down to one character each", () => {
    for (const size of [1, 2, 3, 7, 64]) expect(events(xml, size).filter((e) => e !== "text:\n")).toEqual(expected);
  });
});

describe("what it refuses", () => {
  test("a DOCTYPE, an unknown entity, a bare &, a close tag that matches nothing, an unclosed element", () => {
    expect(problemOf('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>').message).toBe("it has a DOCTYPE, which no workbook has");
    expect(problemOf("<x>&nbsp;</x>").message).toBe('a "&" that starts no entity ("&")');
    expect(problemOf("<x>a & b</x>").message).toBe('a "&" that starts no entity ("&")');
    expect(problemOf("<x><y></x>").message).toBe("</x> closes <y>");
    expect(problemOf("<x><y/>").message).toBe("it ends before <x> is closed");
    expect(problemOf("<x a=1/>").message).toBe('the tag <x> has something that is no attribute: "a=1/"');
    for (const p of [problemOf("<x>&nbsp;</x>"), problemOf("<x><y></x>")]) expect(p.limit).toBe(false);
  });

  test(`elements nested more than ${MAX_DEPTH} deep, at the first too many`, () => {
    expect(events(`${"<a>".repeat(MAX_DEPTH)}${"</a>".repeat(MAX_DEPTH)}`)).toHaveLength(2 * MAX_DEPTH);
    const problem = problemOf("<a>".repeat(1_000_000), 4096);
    expect([problem.message, problem.limit]).toEqual([
      `nests elements more than ${MAX_DEPTH} deep, which no workbook does (a damaged file or an attack)`,
      true,
    ]);
  });

  test(`a tag of over ${MAX_TAG_CHARS.toLocaleString("en")} characters, whatever its chunks, before it ends`, () => {
    const attributes = Array.from({ length: 20_000 }, (_, i) => ` a${i}="1"`).join("");
    for (const size of [1000, 200_000]) {
      const problem = problemOf(`<row${attributes}/>`, size);
      expect(problem.limit).toBe(true);
      expect(problem.message).toStartWith(`has a tag of over ${MAX_TAG_CHARS.toLocaleString("en")} characters`);
    }
    expect(events(`<row${attributes.slice(0, 60_000)}/>`)).toHaveLength(2);
  });

  test("text is handed on in pieces, never gathered: 10 MB of it in 64 KiB chunks comes as many pieces", () => {
    let pieces = 0;
    let longest = 0;
    const parser = new BoundedXml({
      text: (t) => {
        pieces++;
        longest = Math.max(longest, t.length);
      },
    });
    parser.write("<t>");
    const chunk = "x".repeat(65_536);
    for (let i = 0; i < 160; i++) parser.write(chunk);
    parser.write("</t>");
    parser.close();
    expect(pieces).toBe(160);
    expect(longest).toBe(65_536);
  });
});
