// The dockerfile builder's detection as data: on a container runtime a Dockerfile outranks every language and the
// release runs the image's own command; on the local runtime a Dockerfile alone is refused naming RUNTIME=docker, and
// one beside another builder's files is left to that builder; a link named Dockerfile is refused. The fence that keeps
// a Dockerfile from building on another app's release image. Building and running real images is dockerfile.test.ts
// (docker runtime).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BuildError, detectBuild } from "../../server/hosting/builders/index.ts";
import type { ResolvedPlan } from "../../server/hosting/builders/types.ts";
import { imagesBuiltFrom, isReleaseImage } from "../../server/platform/runtime/docker/dockerfile-image.ts";

const DOCKERFILE = 'FROM debian:12\nCMD ["./server"]\n';

let base: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "slipway-dockerfile-"));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(path.join(base, "p-"));
  for (const [file, contents] of Object.entries(files)) await fs.writeFile(path.join(dir, file), contents);
  return dir;
}

async function detect(dir: string, runtime: string): Promise<{ plan: ResolvedPlan; log: string[] }> {
  const log: string[] = [];
  const plan = await detectBuild({ dir, cachePath: "/cache", runtime, log: (line) => log.push(line) });
  return { plan, log };
}

async function refusal(dir: string, runtime: string): Promise<BuildError> {
  const error = await detect(dir, runtime).then(() => expect.fail("expected a BuildError"), (e: Error) => e);
  expect(error).toBeInstanceOf(BuildError);
  return error as BuildError;
}

describe("dockerfile builder", () => {
  it.each(["docker", "swarm"])("on RUNTIME=%s builds the image, before any language, and runs the image's own command", async (runtime) => {
    const dir = await project({ Dockerfile: DOCKERFILE, "package.json": '{"scripts": {"start": "node server.js"}}' });
    const { plan, log } = await detect(dir, runtime);
    expect(plan).toEqual({ builder: "dockerfile", steps: [], image: { dockerfile: "Dockerfile" }, web: { kind: "process", argv: [] } });
    expect(log).toContain("Found Dockerfile: building with the dockerfile builder.");
  });

  it("takes a Procfile's web: and release: lines over the image's command", async () => {
    const dir = await project({ Dockerfile: DOCKERFILE, Procfile: "web: ./server --port $PORT\nrelease: ./migrate\n" });
    const { plan } = await detect(dir, "docker");
    expect(plan.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", "./server --port $PORT"] });
    expect(plan.release).toEqual(["/bin/sh", "-c", "./migrate"]);
  });

  it("on the local runtime refuses a Dockerfile alone, naming RUNTIME=docker", async () => {
    const error = await refusal(await project({ Dockerfile: DOCKERFILE, "server.go": "package main\n" }), "local");
    expect(error.message).toContain("RUNTIME=docker");
    expect(error.builder).toBe("dockerfile");
  });

  it("on the local runtime leaves a Dockerfile beside package.json to the node builder", async () => {
    const dir = await project({ Dockerfile: DOCKERFILE, "package.json": '{"scripts": {"start": "node server.js"}}' });
    const { plan, log } = await detect(dir, "local");
    expect(plan.builder).toBe("node");
    expect(plan.image).toBeUndefined();
    expect(log.some((line) => line.includes("local runtime does not build"))).toBe(true);
  });

  it("on the local runtime leaves a Dockerfile beside index.html to the static builder", async () => {
    const { plan } = await detect(await project({ Dockerfile: DOCKERFILE, "index.html": "<h1>hi</h1>" }), "local");
    expect(plan.builder).toBe("static");
  });

  it.each(["docker", "local"])("refuses a Dockerfile that is a link (RUNTIME=%s)", async (runtime) => {
    const dir = await project({ "real.Dockerfile": DOCKERFILE, "package.json": "{}" });
    await fs.symlink("real.Dockerfile", path.join(dir, "Dockerfile"));
    const error = await refusal(dir, runtime);
    expect(error.message).toBe("Dockerfile is a symbolic link; Slipway reads build files only from regular files in the project.");
  });

  it("passes over a folder named Dockerfile", async () => {
    const dir = await project({ "index.html": "<h1>hi</h1>" });
    await fs.mkdir(path.join(dir, "Dockerfile"));
    expect((await detect(dir, "docker")).plan.builder).toBe("static");
  });
});

describe("the images a Dockerfile builds from", () => {
  it("lists FROM and COPY --from images as the builder resolves its ARGs, without its own stages or scratch", () => {
    const dockerfile = [
      "ARG NODE=20",
      "ARG BASE",
      "FROM --platform=linux/amd64 node:${NODE}-slim AS build",
      "FROM \\",
      "  ${BASE:-debian:12}",
      "COPY --from=build /out /app",
      "COPY --from=0 /out /app",
      "COPY --from=127.0.0.1:5000/team/tools:1 /bin/tool /bin/tool",
      "FROM scratch",
      "",
    ].join("\n");
    expect(imagesBuiltFrom(dockerfile, { NODE: "22" })).toEqual(["node:22-slim", "debian:12", "127.0.0.1:5000/team/tools:1"]);
    expect(imagesBuiltFrom(dockerfile, { BASE: "alpine:3" })).toEqual(["node:20-slim", "alpine:3", "127.0.0.1:5000/team/tools:1"]);
  });

  it.each([
    ["FROM slipway/other-app:cmwz1\n", {}],
    ["FROM --platform=linux/amd64 docker.io/slipway/other-app:cmwz1 AS base\n", {}],
    ["FROM node:22\nCOPY --from=127.0.0.1:5000/slipway/other-app:cmwz1 /app /stolen\n", {}],
    ["ARG IMAGE=slipway/other-app:cmwz1\nFROM $IMAGE\n", {}],
    ["ARG IMAGE=debian:12\nFROM ${IMAGE}\n", { IMAGE: "slipway/other-app:cmwz1" }],
  ])("finds another app's release image in %j (build args %j)", (dockerfile, buildArgs) => {
    expect(imagesBuiltFrom(dockerfile, buildArgs).filter(isReleaseImage)).toEqual([expect.stringMatching(/slipway\/other-app:cmwz1$/)]);
  });

  it.each(["slipway/base:node20-abc", "node:22", "registry.example.com/team/slipway-fork:1", "ghcr.io/slipway-dev/app:1"])("lets %s be built from", (image) => {
    expect(isReleaseImage(image)).toBe(false);
  });
});
