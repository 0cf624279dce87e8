// The base image every build and app runs on. DOCKER_BASE_IMAGE names one the operator provides (it must hold node,
// npm, sh, a user 10001, and the toolchains of the languages its apps use); otherwise Slipway makes one from this
// host, offline, through the Engine API: the node binary and the shared libraries it loads (ldd), npm, a shell and
// the few tools builds call (rm, cp, mkdir...), the builders' toolchains as the host installed them (Python, Go,
// Ruby, PHP: the files their Debian packages put in /usr, at the same paths, as the local sandbox sees them),
// /etc/ssl, and passwd/group with the app user. It is tagged with the Node version and a hash of what went in, so it
// is built once per host install and reused by every platform on the engine.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { type Docker, LABEL, followProgress, isNotFound, splitTag } from "./client.ts";
import { type HostPackages, hostPackages } from "./host-packages.ts";
import { addDirectory, addFile, addSymlink, addText, addTree, createPack, type Pack } from "./tar.ts";

/** The user apps and builds run as, in every image Slipway makes. */
export const APP_USER = { uid: 10001, gid: 10001 };
export const BASE_REPOSITORY = "slipway/base";
/** Bumped whenever what goes into the base image changes. */
const RECIPE = "3";
/** Tools builds, start scripts and terminals (stty, tty) use besides node and npm; those missing on the host are left out. */
const TOOLS = ["sh", "env", "rm", "cp", "mv", "mkdir", "ls", "cat", "ln", "chmod", "touch", "sleep", "true", "false", "test", "echo", "dirname", "basename", "id", "stty", "tty"];

const run = promisify(execFile);

export interface BaseImageHost {
  node: string;
  npmDir: string | null;
  tools: string[];
  /** The builders' toolchains: their Debian packages' versions, and their files and links in /usr. */
  packages: HostPackages;
}

export interface BaseImageOptions {
  /** DOCKER_BASE_IMAGE. */
  configured?: string;
  /** The Debian packages of the builders' toolchains (names, or patterns for the host's add-ons such as gems). */
  toolchains?: readonly (string | RegExp)[];
  log?: (line: string) => void;
}

/** The image to build from: the configured one (checked to exist), or Slipway's own, built when missing. */
export async function ensureBaseImage(docker: Docker, { configured, toolchains = [], log }: BaseImageOptions = {}): Promise<string> {
  if (configured) {
    await docker.getImage(configured).inspect().catch((error: unknown) => {
      throw new Error(`DOCKER_BASE_IMAGE ${configured} is not on the engine (${(error as Error).message}); pull or load it first`);
    });
    return configured;
  }
  const { host, tag } = await hostBase(toolchains);
  try {
    await docker.getImage(tag).inspect();
    return tag;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  log?.(`building the base image ${tag} from this host's Node runtime and ${host.packages.versions.length} packages of the builders' toolchains (once per host install)`);
  await buildBaseImage(docker, tag, host);
  return tag;
}

const scanned = new Map<string, Promise<{ host: BaseImageHost; tag: string }>>();

/** What this host puts into its base image, and its tag: scanned once per process (hashing node takes a while). */
function hostBase(toolchains: readonly (string | RegExp)[]): Promise<{ host: BaseImageHost; tag: string }> {
  const key = toolchains.map(String).join(" ");
  let pending = scanned.get(key);
  if (!pending) {
    pending = findHostRuntime(toolchains).then(async (host) => ({ host, tag: `${BASE_REPOSITORY}:${await baseTag(host)}` }));
    pending.catch(() => scanned.delete(key));
    scanned.set(key, pending);
  }
  return pending;
}

/** Where this host's node, npm, tools and toolchains are. */
export async function findHostRuntime(toolchains: readonly (string | RegExp)[] = []): Promise<BaseImageHost> {
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
  return { node, npmDir, tools, packages: await hostPackages(toolchains) };
}

/** node<version>-<hash of the node binary, npm's version, the toolchains' package versions and the recipe>. */
async function baseTag(host: BaseImageHost): Promise<string> {
  const hash = createHash("sha256").update(RECIPE);
  for await (const chunk of createReadStream(host.node)) hash.update(chunk as Buffer);
  if (host.npmDir) hash.update(await fs.readFile(path.join(host.npmDir, "package.json")));
  hash.update(host.tools.join(","));
  hash.update(host.packages.versions.join(","));
  return `node${process.versions.node}-${hash.digest("hex").slice(0, 12)}`;
}

/**
 * One import of the whole file system (POST /images/create?fromSrc=-): a single layer written once, where a build's
 * `COPY` would send the context and then copy it again into its layer (650 MB with the toolchains).
 */
async function buildBaseImage(docker: Docker, tag: string, host: BaseImageHost): Promise<void> {
  const pack = createPack();
  const filling = fillRootfs(pack, host).then(
    () => pack.finalize(),
    (error: Error) => pack.destroy(error),
  );
  const [repo, version] = splitTag(tag);
  const stream = await docker.importImage(pack as unknown as NodeJS.ReadableStream, { repo, tag: version, changes: imageConfig() });
  await Promise.all([followProgress(docker, stream as never), filling]);
}

async function fillRootfs(pack: Pack, host: BaseImageHost): Promise<void> {
  const files = new Map<string, string>(); // path in the image → file on the host
  for (const binary of [host.node, ...host.tools]) {
    files.set(imagePath(binary), await fs.realpath(binary));
    for (const lib of await sharedLibraries(binary)) files.set(imagePath(lib), await fs.realpath(lib));
  }
  for (const dir of ["usr", "usr/bin", "usr/lib", "usr/lib64", "usr/sbin", "etc", "app", "data", "home"]) await addDirectory(pack, dir);
  await addDirectory(pack, "tmp", 0o1777);
  for (const link of ["bin", "lib", "lib64", "sbin"]) await addSymlink(pack, link, `usr/${link}`);
  // Parent folders missing from the tar (usr/lib/x86_64-linux-gnu) are created by the engine.
  // Path in the image → the link's own target, as the package has it.
  const links = new Map([...host.packages.links].map(([file, target]) => [imagePath(file), target]));
  for (const file of host.packages.files) if (!files.has(imagePath(file))) files.set(imagePath(file), file);
  for (const inImage of files.keys()) if (underLink(inImage, links)) files.delete(inImage);
  for (const [inImage, source] of [...files].sort()) await addFile(pack, inImage, source);
  for (const [inImage, target] of [...links].sort()) if (!files.has(inImage)) await addSymlink(pack, inImage, target);
  if (host.npmDir) {
    await addTree(pack, "usr/lib/node_modules/npm", host.npmDir);
    await addSymlink(pack, "usr/bin/npm", "../lib/node_modules/npm/bin/npm-cli.js");
    await addSymlink(pack, "usr/bin/npx", "../lib/node_modules/npm/bin/npx-cli.js");
  }
  await addTree(pack, "etc/ssl", "/etc/ssl").catch(() => {});
  const { uid, gid } = APP_USER;
  await addText(pack, "etc/passwd", `root:x:0:0:root:/root:/bin/sh\napp:x:${uid}:${gid}::/app:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/sh\n`);
  await addText(pack, "etc/group", `root:x:0:\napp:x:${gid}:\nnogroup:x:65534:\n`);
  await addText(pack, "etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files dns\n");
}

/** A file listed below a folder that is a link in the image (a package's /usr/lib/go/src → ../share/go/src) goes in through the link's target. */
function underLink(inImage: string, links: Map<string, string>): boolean {
  for (let dir = path.posix.dirname(inImage); dir !== "." && dir !== "/"; dir = path.posix.dirname(dir)) if (links.has(dir)) return true;
  return false;
}

/** The image's configuration, as Dockerfile instructions the import applies. */
function imageConfig(): string[] {
  return [`USER ${APP_USER.uid}:${APP_USER.gid}`, "WORKDIR /app", "ENV PATH=/usr/bin:/bin HOME=/app", 'CMD ["node"]', `LABEL ${LABEL.kind}=base`];
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
