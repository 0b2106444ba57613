/**
 * constantTimeEqual (lib/credentials.ts), which compares client-secret digests and cursor
 * MACs: right answers wherever two strings differ, and a shape that cannot return early, so
 * its time depends on the lengths alone (docs/api.md, "Getting credentials"). Timing itself
 * is too noisy to test; the code's shape is checked instead: one loop over the longer
 * length, no early exit, one return after it.
 */
import { describe, expect, test } from "bun:test";
import { constantTimeEqual, digestSecret } from "../lib/credentials.ts";

const digest = digestSecret("svcs_example");
const differAt = (text: string, i: number) => text.slice(0, i) + (text[i] === "0" ? "1" : "0") + text.slice(i + 1);

describe("constantTimeEqual answers", () => {
  test("equal strings, empty ones included, are equal", () => {
    expect(constantTimeEqual(digest, `${digest}`)).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("é€😀", "é€😀")).toBe(true);
  });

  test("a difference at the first, a middle or the last byte is seen", () => {
    for (const i of [0, 1, 31, digest.length - 2, digest.length - 1]) {
      expect(constantTimeEqual(digest, differAt(digest, i))).toBe(false);
      expect(constantTimeEqual(differAt(digest, i), digest)).toBe(false);
    }
  });

  test("different lengths are unequal, a prefix and a zero-padded copy included", () => {
    expect(constantTimeEqual(digest, digest.slice(0, -1))).toBe(false);
    expect(constantTimeEqual(digest.slice(0, -1), digest)).toBe(false);
    expect(constantTimeEqual(digest, "")).toBe(false);
    expect(constantTimeEqual("a", "a\u0000")).toBe(false);
    // Same characters, different UTF-8 lengths.
    expect(constantTimeEqual("\u00e9", "e\u0301")).toBe(false);
  });

  test("every single-bit change of every byte is seen", () => {
    const text = "svcs_AbC-_09";
    for (let i = 0; i < text.length; i++) {
      for (let bit = 0; bit < 7; bit++) {
        const changed = text.slice(0, i) + String.fromCharCode(text.charCodeAt(i) ^ (1 << bit)) + text.slice(i + 1);
        expect(constantTimeEqual(text, changed)).toBe(false);
      }
    }
  });
});

describe("constantTimeEqual's shape", () => {
  const source = constantTimeEqual.toString();
  const body = source.slice(source.indexOf("{") + 1, source.lastIndexOf("}"));

  test("one loop, over the longer of the two lengths", () => {
    expect(body.match(/\bfor\s*\(/g)).toHaveLength(1);
    expect(body).toMatch(/Math\.max\(/);
    expect(body).not.toMatch(/\bwhile\s*\(/);
  });

  test("no early exit: one return, after the loop, and no break, continue or short-circuit in it", () => {
    expect(body.match(/\breturn\b/g)).toHaveLength(1);
    expect(body.lastIndexOf("return")).toBeGreaterThan(body.indexOf("for"));
    expect(body).not.toMatch(/\b(break|continue|throw)\b/);
    const loop = body.slice(body.indexOf("for"), body.lastIndexOf("return"));
    // `??` is allowed: it branches on an index past a length, and the lengths are not secret.
    expect(loop).not.toMatch(/&&|\|\||(?<!\?)\?(?![?.])|\bif\b/);
  });
});
