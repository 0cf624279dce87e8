// The slug suggested for what someone typed: the server's message and the dashboard's "Use …" button agree.
import { describe, expect, it } from "vitest";
import { slugProblems, suggestSlug } from "../../server/services/slug.ts";
import { suggestSlug as suggestSlugInForm } from "../../web/src/lib/slug.ts";

const TYPED: [string, string | null][] = [
  ["Hello Node", "hello-node"],
  ["Not_A_Slug", "not-a-slug"],
  ["my.app", "my-app"],
  ["  Café au lait!  ", "cafe-au-lait"],
  ["42 Answers", "answers"],
  ["a--b__c", "a-b-c"],
  [`Long ${"x".repeat(50)}`, `long-${"x".repeat(35)}`],
  ["hello-node", null], // valid already
  ["Admin", null], // reserved
  ["PR-1-Thing", null], // a preview app's name
  ["ab", null],
  ["!!!", null],
];

describe("suggestSlug", () => {
  it.each(TYPED)("%j → %j, in the server and in the dashboard", (typed, expected) => {
    expect(suggestSlug(typed)).toBe(expected);
    expect(suggestSlugInForm(typed)).toBe(expected);
  });
});

describe("slugProblems", () => {
  it("names what is wrong, not the rule", () => {
    expect(slugProblems("Hello Node")).toBe('"Hello Node" has capital letters and spaces.');
    expect(slugProblems("my_app!")).toBe('"my_app!" has "_" "!".');
    expect(slugProblems("1a")).toBe('"1a" is shorter than 3 characters and does not start with a letter.');
    expect(slugProblems("app-")).toBe('"app-" ends with a hyphen.');
    expect(slugProblems("hello-node")).toBeNull();
  });
});
