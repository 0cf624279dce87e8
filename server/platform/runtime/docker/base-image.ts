// The base image every build and app runs on. DOCKER_BASE_IMAGE names one the operator provides (it must hold node,
// npm, sh and a user 10001); otherwise Slipway makes one from this host's Node runtime, offline, through the Engine
// API: the node binary and the shared libraries it loads (ldd), npm, a shell and the few tools builds call (rm, cp,
// mkdir...), /etc/ssl, and passwd/group with the app user. It is tagged with the Node version and a hash of what went
// in, so it is built once per Node install and reused by every platform on the engine.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { type Docker, LABEL, followProgress, isNotFound } from "./client.ts";
import { addDirectory, addFile, addSymlink, addText, addTree, createPack, type Pack } from "./tar.ts";

/** The user apps and builds run as, in every image Slipway makes. */
export const APP_USER = { uid: 10001, gid: 10001 };
export const BASE_REPOSITORY = "slipway/base";
/** Bumped whenever what goes into the base image changes. */
const RECIPE = "2";
/** Tools builds, start scripts and terminals (stty, tty) use besides node and npm; those missing on the host are left out. */
const TOOLS = ["sh", "env", "rm", "cp", "mv", "mkdir", "ls", "cat", "ln", "chmod", "touch", "sleep", "true", "false", "test", "echo", "dirname", "basename", "id", "stty", "tty"];

const run = promisify(execFile);

export interface BaseImageHost {
  node: string;
  npmDir: string | null;
  tools: string[];
}

/** The image to build from: the configured one (checked to exist), or Slipway's own, built when missing. */
export async function ensureBaseImage(docker: Docker, configured?: string, log?: (line: string) => void): Promise<string> {
  if (configured) {
    await docker.getImage(configured).inspect().catch((error: unknown) => {
      throw new Error(`DOCKER_BASE_IMAGE ${configured} is not on the engine (${(error as Error).message}); pull or load it first`);
    });
    return configured;
  }
  const host = await findHostRuntime();
  const tag = `${BASE_REPOSITORY}:${await baseTag(host)}`;
  try {
    await docker.getImage(tag).inspect();
    return tag;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  log?.(`building the base image ${tag} from this host's Node runtime`);
  await buildBaseImage(docker, tag, host);
  return tag;
}

/** Where this host's node, npm and tools are. */
export async function findHostRuntime(): Promise<BaseImageHost> {
  const node = await fs.realpath(process.execPath);
  const npmDir = await fs
    .realpath(path.join(path.dirname(node), "..", "lib", "node_modules", "npm"))
    .then((dir) => fs.stat(path.join(dir, "bin", "npm-cli.js")).then(() => dir))
    .catch(() => null);
  const tools: string[] = [];
  for (const tool of TOOLS) {
    for (const dir of ["/usr/bin", "/bin"]) {
      const file = path.join(dir, tool);
      if (await fs.access(file, fs.constants.X_OK).then(() => true, () => false)) {
        tools.push(file);
        break;
      }
    }
  }
  return { node, npmDir, tools };
}

/** node<version>-<hash of the node binary, npm's version and the recipe>. */
async function baseTag(host: BaseImageHost): Promise<string> {
  const hash = createHash("sha256").update(RECIPE);
  for await (const chunk of createReadStream(host.node)) hash.update(chunk as Buffer);
  if (host.npmDir) hash.update(await fs.readFile(path.join(host.npmDir, "package.json")));
  hash.update(host.tools.join(","));
  return `node${process.versions.node}-${hash.digest("hex").slice(0, 12)}`;
}

async function buildBaseImage(docker: Docker, tag: string, host: BaseImageHost): Promise<void> {
  const pack = createPack();
  const filling = fillBaseContext(pack, host).then(
    () => pack.finalize(),
    (error: Error) => pack.destroy(error),
  );
  const stream = await docker.buildImage(pack as unknown as NodeJS.ReadableStream, {
    t: tag,
    labels: { [LABEL.kind]: "base" },
    dockerfile: "Dockerfile",
    rm: true,
    forcerm: true,
  } as Record<string, unknown>);
  await Promise.all([followProgress(docker, stream as never), filling]);
}

async function fillBaseContext(pack: Pack, host: BaseImageHost): Promise<void> {
  await addText(pack, "Dockerfile", baseDockerfile());
  const files = new Map<string, string>(); // path in the image → file on the host
  for (const binary of [host.node, ...host.tools]) {
    files.set(imagePath(binary), await fs.realpath(binary));
    for (const lib of await sharedLibraries(binary)) files.set(imagePath(lib), await fs.realpath(lib));
  }
  await addDirectory(pack, "rootfs");
  for (const dir of ["usr", "usr/bin", "usr/lib", "usr/lib64", "usr/sbin", "etc", "app", "data", "home"]) await addDirectory(pack, `rootfs/${dir}`);
  await addDirectory(pack, "rootfs/tmp", 0o1777);
  for (const link of ["bin", "lib", "lib64", "sbin"]) await addSymlink(pack, `rootfs/${link}`, `usr/${link}`);
  // Parent folders missing from the tar (usr/lib/x86_64-linux-gnu) are created by the engine.
  for (const [inImage, source] of [...files].sort()) await addFile(pack, `rootfs/${inImage}`, source);
  if (host.npmDir) {
    await addTree(pack, "rootfs/usr/lib/node_modules/npm", host.npmDir);
    await addSymlink(pack, "rootfs/usr/bin/npm", "../lib/node_modules/npm/bin/npm-cli.js");
    await addSymlink(pack, "rootfs/usr/bin/npx", "../lib/node_modules/npm/bin/npx-cli.js");
  }
  await addTree(pack, "rootfs/etc/ssl", "/etc/ssl").catch(() => {});
  const { uid, gid } = APP_USER;
  await addText(pack, "rootfs/etc/passwd", `root:x:0:0:root:/root:/bin/sh\napp:x:${uid}:${gid}::/app:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/sh\n`);
  await addText(pack, "rootfs/etc/group", `root:x:0:\napp:x:${gid}:\nnogroup:x:65534:\n`);
  await addText(pack, "rootfs/etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files dns\n");
}

function baseDockerfile(): string {
  return [
    "FROM scratch",
    "COPY rootfs/ /",
    `USER ${APP_USER.uid}:${APP_USER.gid}`,
    "WORKDIR /app",
    "ENV PATH=/usr/bin:/bin HOME=/app",
    'CMD ["node"]',
    "",
  ].join("\n");
}

/** /lib/x86_64-linux-gnu/libc.so.6 → usr/lib/x86_64-linux-gnu/libc.so.6 (the image is merged-/usr: /lib → usr/lib). */
function imagePath(hostPath: string): string {
  const relative = hostPath.replace(/^\/+/, "");
  return relative.startsWith("usr/") ? relative : `usr/${relative}`;
}

/** The absolute paths of the libraries a binary loads, from ldd (the loader included). */
async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await run("/usr/bin/ldd", [binary]).catch(() => ({ stdout: "" }));
  return [...stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]);
}
