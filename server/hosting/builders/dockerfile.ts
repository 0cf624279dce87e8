// Projects with a Dockerfile at the top, on a container runtime (RUNTIME=docker or swarm): the runtime builds the
// image from the Dockerfile (the project is the build context) and the release runs that image, as its user would
// expect, but inside Slipway's sandbox: its CMD/ENTRYPOINT with PORT set, as uid 10001 whatever its USER says, on a
// read-only root filesystem with no capabilities, on the app's own network. A Procfile web: line replaces its CMD.
// The local runtime has no images: a Dockerfile alone fails the build naming RUNTIME=docker, and a Dockerfile beside
// another builder's files is left to that builder (the Dockerfile is then just a file of the app).
import fs from "node:fs/promises";
import path from "node:path";
import { BuildError } from "./errors.ts";
import { hasProjectFile } from "./files.ts";
import type { Builder } from "./types.ts";

export const DOCKERFILE = "Dockerfile";

/**
 * The files by which the other builders recognise a project (API.md, "Builds in any language"): on the local
 * runtime, one of them beside a Dockerfile means that builder builds the project. Their detect() is not called
 * here: it may prepare the directory (reuse dependencies), which only the builder that builds may do.
 */
const OTHER_BUILDERS_FILES = [
  "package.json",
  "requirements.txt",
  "pyproject.toml",
  "Pipfile.lock",
  "uv.lock",
  "go.mod",
  "Gemfile",
  "composer.json",
  "index.php",
  "Procfile",
  "index.html",
];

export const dockerfileBuilder: Builder = {
  name: "dockerfile",
  looksFor: "Dockerfile",
  // For the boot log: on RUNTIME=local, detect() itself refuses (or leaves the project to another builder).
  runtimes: ["docker", "swarm"],
  async detect(ctx) {
    if (!(await hasProjectFile(ctx.dir, DOCKERFILE))) return null;
    if (ctx.runtime === "local") {
      if (await hasAny(ctx.dir, OTHER_BUILDERS_FILES)) {
        ctx.log("Found a Dockerfile, which this server's local runtime does not build: building with the project's other files.");
        return null;
      }
      throw new BuildError(
        "This project has only a Dockerfile, and this Slipway server runs apps without containers (RUNTIME=local): " +
          "its operator can run it with RUNTIME=docker (or swarm) to build Dockerfiles, or add the files of a language (package.json, requirements.txt, …) beside it.",
      );
    }
    return { builder: "dockerfile", steps: [], image: { dockerfile: DOCKERFILE }, web: { kind: "process", argv: [] } };
  },
};

async function hasAny(dir: string, names: string[]): Promise<boolean> {
  for (const name of names) if (await fs.lstat(path.join(dir, name)).then(() => true, () => false)) return true;
  return false;
}
