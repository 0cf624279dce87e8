// A release image built from the user's own Dockerfile, through the Engine API's classic builder (version 1), not
// BuildKit: the classic builder runs each RUN step in a container on the network named in `networkmode`, the app's
// own (network.ts: its firewall keeps builds away from the host's services, other apps and metadata addresses), under
// the build's memory and CPU limits, and writes its output as plain text lines. BuildKit through this API accepts
// only its default network (the engine's bridge, from which the host's services answer), ignores the limits and
// sends its progress as protobuf. Layers come from the engine's cache (`Using cache`), so a redeploy rebuilds only
// from the first step that changed. An image the Dockerfile builds from (FROM, COPY --from) is the engine's when it
// has it; else, with REGISTRY_URL, it is pulled from there (`<registry>/<name>`) and tagged as named, before the
// build; else the engine pulls it from where its name says (Docker Hub for `node:22`).
// The context is a tar made here from the release directory (tar.ts: links leading out of it are left out), less
// what .dockerignore excludes; the image gets our labels (its app, kind "dockerfile") and the release's tag. The
// engine also holds other apps' release images (slipway/<slug>:<deployment>): a Dockerfile that names one in FROM or
// COPY --from is refused before the build (their deployment ids are not guessable anyway; this is a second fence).
import fs from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import dockerignore from "@balena/dockerignore";
import type { OutputSink, SandboxLimits } from "../types.ts";
import { type Docker, LABEL, followProgress, splitTag } from "./client.ts";
import { addTree, createPack } from "./tar.ts";

/** The kind label of images built from a user's Dockerfile: start() and run() keep their WORKDIR and command. */
export const DOCKERFILE_KIND = "dockerfile";

export interface DockerfileBuild {
  tag: string;
  contextDir: string;
  dockerfile: string;
  labels: Record<string, string>;
  /** The network RUN steps join: the app's own. */
  network: string;
  /** REGISTRY_URL (host[:port]): where images the engine lacks are pulled from. */
  registry: string | null;
  limits: SandboxLimits;
  buildArgs: Record<string, string>;
  onOutput: OutputSink;
  signal: AbortSignal;
}

interface BuildEvent {
  stream?: string;
  error?: string;
  errorDetail?: { message?: string };
}

const NOFOLLOW = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** Lines of the classic builder that say nothing to the user. */
const NOISE = /^(?: ---> Running in [0-9a-f]+|Removing intermediate container [0-9a-f]+)\n?$/;

/** Builds and tags the image; resolves with why it failed (the failing step's message), or null once it is built. */
export async function buildDockerfileImage(docker: Docker, build: DockerfileBuild): Promise<string | null> {
  const text = await fs.readFile(path.join(build.contextDir, build.dockerfile), { encoding: "utf8", flag: NOFOLLOW });
  const images = imagesBuiltFrom(text, build.buildArgs);
  const refused = images.find(isReleaseImage);
  if (refused) return `${build.dockerfile} builds from ${refused}, a release image of Slipway's; build from a public image or from slipway/base.`;
  if (build.registry) {
    for (const image of images) {
      const failure = await pullThroughRegistry(docker, image, build.registry, build.onOutput);
      if (failure) return failure;
    }
  }
  const pack = createPack();
  const filling = fillContext(pack, build).then(
    () => pack.finalize(),
    (error: Error) => pack.destroy(error),
  );
  // Aborting the request makes the engine stop the build; the context stops being read, so it is dropped too.
  const drop = () => pack.destroy();
  build.signal.addEventListener("abort", drop, { once: true });
  try {
    const stream = await startBuild(docker, pack, build);
    const [failure] = await Promise.all([followBuild(stream, build.onOutput), filling]);
    return failure;
  } catch (error) {
    // The engine refused the build outright (400: a Dockerfile it cannot parse): its message is the build's error.
    const { statusCode, message } = error as { statusCode?: number; message: string };
    if (statusCode === 400 && !build.signal.aborted) return message.replace(/^\(HTTP code 400\) \w+ - /, "").trim();
    throw error;
  } finally {
    build.signal.removeEventListener("abort", drop);
    drop();
  }
}

function startBuild(docker: Docker, pack: ReturnType<typeof createPack>, build: DockerfileBuild): Promise<Readable> {
  const cpuPeriod = 100_000;
  return docker.buildImage(pack as unknown as NodeJS.ReadableStream, {
    t: build.tag,
    dockerfile: build.dockerfile,
    labels: { ...build.labels, [LABEL.kind]: DOCKERFILE_KIND },
    buildargs: build.buildArgs,
    networkmode: build.network,
    memory: build.limits.memoryBytes,
    memswap: build.limits.memoryBytes,
    cpuperiod: cpuPeriod,
    cpuquota: Math.round((build.limits.cpuPercent / 100) * cpuPeriod),
    version: "1",
    rm: true,
    forcerm: true,
    abortSignal: build.signal,
  } as Record<string, unknown>) as Promise<Readable>;
}

/**
 * The images a Dockerfile builds from (FROM, COPY/ADD --from), with ARG defaults and build args substituted as the
 * builder would; its own stages (FROM … AS name, a stage's number) and `scratch` left out.
 */
export function imagesBuiltFrom(dockerfile: string, buildArgs: Record<string, string>): string[] {
  const args: Record<string, string> = { ...buildArgs };
  const substitute = (text: string) =>
    text.replace(/\$\{(\w+)(?::?[-+]([^}]*))?\}|\$(\w+)/g, (_, braced: string, fallback: string | undefined, bare: string) => args[braced ?? bare] ?? fallback ?? "");
  const stages = new Set(["scratch"]);
  const images = new Set<string>();
  for (const line of dockerfile.replace(/\\\r?\n/g, " ").split(/\r?\n/)) {
    const arg = /^\s*ARG\s+(\w+)=("?)([^"\s]*)\2\s*$/i.exec(line);
    if (arg) args[arg[1]] ??= substitute(arg[3]);
    const from = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    const copyFrom = /^\s*(?:COPY|ADD)\s.*--from=(\S+)/i.exec(line)?.[1];
    const image = from ? substitute(from[1]).toLowerCase() : copyFrom && substitute(copyFrom).toLowerCase();
    if (image && !stages.has(image) && !/^\d+$/.test(image)) images.add(image);
    if (from?.[2]) stages.add(from[2].toLowerCase());
  }
  return [...images];
}

/** A Slipway release image (slipway/*, except the base image), on the engine or in any registry (REGISTRY_URL's). */
export function isReleaseImage(image: string): boolean {
  const repository = withoutRegistry(image);
  return repository.startsWith("slipway/") && !repository.startsWith("slipway/base:");
}

/** node:22 → node:22; 127.0.0.1:5000/team/app:1 → team/app:1 (a first part with a dot or a port is a registry). */
function withoutRegistry(image: string): string {
  const parts = image.split("/");
  if (parts.length > 1 && /[.:]|^localhost$/.test(parts[0])) parts.shift();
  return parts.join("/");
}

/** An image the engine lacks, pulled from the registry and tagged as the Dockerfile names it; why not, or null. */
async function pullThroughRegistry(docker: Docker, image: string, registry: string, onOutput: OutputSink): Promise<string | null> {
  if (image.includes("@")) return null;
  const named = /:[^/]+$/.test(image) ? image : `${image}:latest`;
  if (await docker.getImage(named).inspect().then(() => true, () => false)) return null;
  const remote = `${registry}/${withoutRegistry(named)}`;
  onOutput("stdout", Buffer.from(`${named} is not on the engine: pulling ${remote} (REGISTRY_URL)\n`));
  try {
    await followProgress(docker, (await docker.pull(remote)) as Readable);
  } catch (error) {
    return `${named} is neither on the engine nor at REGISTRY_URL (${remote}: ${(error as Error).message.trim()})`;
  }
  const [repo, tag] = splitTag(named);
  await docker.getImage(remote).tag({ repo, tag });
  await docker.getImage(remote).remove({ noprune: true });
  return null;
}

/** Whether an image was built from a user's Dockerfile (its kind label). */
export async function isDockerfileImage(docker: Docker, tag: string): Promise<boolean> {
  const image = await docker.getImage(tag).inspect();
  return image.Config?.Labels?.[LABEL.kind] === DOCKERFILE_KIND;
}

/** Streams the build's text into the sink; the error event, if any, is the result (the deployment's error). */
function followBuild(stream: Readable, onOutput: OutputSink): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let pending = "";
    let failure: string | null = null;
    const handle = (line: string) => {
      if (!line.trim()) return;
      const event = JSON.parse(line) as BuildEvent;
      if (event.stream && !NOISE.test(event.stream)) onOutput("stdout", Buffer.from(event.stream));
      failure = event.errorDetail?.message ?? event.error ?? failure;
    };
    stream.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop()!;
      try {
        lines.forEach(handle);
      } catch (error) {
        stream.destroy(error as Error);
      }
    });
    stream.on("end", () => {
      try {
        handle(pending);
        resolve(failure);
      } catch (error) {
        reject(error as Error);
      }
    });
    stream.on("error", reject);
    stream.on("close", () => reject(new Error("the Docker engine closed the build's output before its end")));
  });
}

/** The release directory as the build context, less what its .dockerignore excludes (never the Dockerfile itself). */
async function fillContext(pack: ReturnType<typeof createPack>, build: DockerfileBuild): Promise<void> {
  const patterns = await fs.readFile(path.join(build.contextDir, ".dockerignore"), { encoding: "utf8", flag: NOFOLLOW }).catch(() => "");
  // A CommonJS module whose function is also its `default` (how TypeScript sees it).
  const rules = dockerignore.default().add(patterns.split(/\r?\n/));
  // An excluded folder is left out whole unless an exception (!pattern) may bring back something inside it.
  const hasExceptions = /^\s*!/m.test(patterns);
  const kept = new Set([build.dockerfile, ".dockerignore"]);
  await addTree(pack, "", build.contextDir, {
    include: (name, isDirectory) => kept.has(name) || !rules.ignores(name) || (isDirectory && hasExceptions),
  });
}
