// The dashboard's two parsers of untrusted text: ANSI colours in log lines (into classed segments, never
// markup) and .env lines pasted into the env editor.
import { describe, expect, it } from "vitest";
import { parseAnsi, stripAnsi } from "../../web/src/lib/logs/ansi.ts";
import { parseEnvText } from "../../web/src/lib/env-file.ts";

describe("parseAnsi", () => {
  it("keeps plain text as one unstyled segment, markup included as text", () => {
    expect(parseAnsi('<img src=x onerror="alert(1)">')).toEqual([{ text: '<img src=x onerror="alert(1)">', classes: "" }]);
  });

  it("turns SGR colours and weights into classes, and resets them", () => {
    expect(parseAnsi("\x1b[1;31mred\x1b[0m plain \x1b[92mbright\x1b[39m")).toEqual([
      { text: "red", classes: "ansi-fg-1 ansi-bold" },
      { text: " plain ", classes: "" },
      { text: "bright", classes: "ansi-fg-10" },
    ]);
    expect(parseAnsi("\x1b[44;4mx\x1b[24my\x1b[m z")).toEqual([
      { text: "x", classes: "ansi-bg-4 ansi-underline" },
      { text: "y", classes: "ansi-bg-4" },
      { text: " z", classes: "" },
    ]);
  });

  it("reads 256-colour codes of the 16 base colours and skips the parameters of the others", () => {
    expect(parseAnsi("\x1b[38;5;3ma\x1b[38;5;200;1mb\x1b[38;2;1;2;3;4mc")).toEqual([
      { text: "a", classes: "ansi-fg-3" },
      { text: "b", classes: "ansi-bold" },
      { text: "c", classes: "ansi-bold ansi-underline" },
    ]);
  });

  it("drops other escape sequences: cursor moves, titles, hyperlinks", () => {
    const line = "\x1b[2K\x1b[1Gdone \x1b]0;title\x07\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\ \x1bc!";
    expect(parseAnsi(line)).toEqual([{ text: "done link !", classes: "" }]);
    expect(stripAnsi("\x1b[31mred\x1b[0m")).toBe("red");
  });
});

describe("parseEnvText", () => {
  it("reads KEY=VALUE lines, skipping blanks and comments, dropping export, unquoting values", () => {
    const text = [
      "# database",
      "",
      "export DATABASE_URL=postgres://db/app",
      'GREETING="hello world"',
      "SINGLE='raw \\n kept'",
      'ESCAPED="line\\nnext \\"quoted\\""',
      "URL=https://x.test/#anchor  # a comment",
      "  SPACED = value  ",
      "EMPTY=",
      "EQUALS=a=b",
    ].join("\r\n");
    expect(parseEnvText(text)).toEqual({
      vars: {
        DATABASE_URL: "postgres://db/app",
        GREETING: "hello world",
        SINGLE: "raw \\n kept",
        ESCAPED: 'line\nnext "quoted"',
        URL: "https://x.test/#anchor",
        SPACED: "value",
        EMPTY: "",
        EQUALS: "a=b",
      },
      errors: [],
    });
  });

  it("names the lines that are not KEY=VALUE or whose quote is not closed", () => {
    expect(parseEnvText('just words\nOK=1\nOPEN="never closed').errors).toEqual([
      "Line 1: write it as KEY=VALUE.",
      "Line 3: the quoted value of OPEN must end with its closing quote.",
    ]);
  });
});
