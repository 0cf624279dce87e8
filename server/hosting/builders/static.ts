// Static sites: an index.html at the top of the project. Nothing is built; the platform serves the release
// directory itself.
import { hasProjectFile } from "./files.ts";
import type { Builder } from "./types.ts";

export const staticBuilder: Builder = {
  name: "static",
  looksFor: "index.html",
  async detect(ctx) {
    if (!(await hasProjectFile(ctx.dir, "index.html"))) return null;
    return { builder: "static", steps: [], web: { kind: "static", root: ctx.dir } };
  },
};
