// Go projects (go.mod at the top):
// - the Go: /usr/bin/go when it is at least what go.mod's `go` line asks for, else an older-packaged but newer Go
//   the host also has (/usr/lib/go-1.N, Debian's backports); none new enough fails the build naming those installed
//   (a Go before 1.21 would try anyway and fail on the first newer language feature, with a confusing error);
// - the main package: the top when its .go files say `package main`, else cmd/<name> when cmd/ holds exactly one
//   folder, or one named like the module's last path element (example.com/shop or example.com/shop/v2 → cmd/shop);
// - `go build -ldflags="-s -w" -o .slipway/bin/app <package>`, with -mod=vendor when vendor/modules.txt exists (-s -w
//   as Railpack and most release builds: no symbol table or DWARF, which the linker spends about a third of a small
//   server's build on; panics still print function names and lines; an -ldflags in GOFLAGS is overridden); GOCACHE, GOMODCACHE
//   and GOPATH in the app's build cache, so a redeploy compiles only what changed; GOTOOLCHAIN=local (Go 1.21+
//   never downloads another Go); GOPROXY and GOFLAGS come from the operator's BUILD_ENV or the app's env vars;
// - cgo: Go's own default, as `go build` by hand (on when the host has a C compiler): Debian's Go before 1.20 ships
//   the standard library compiled for it, so forcing CGO_ENABLED=0 recompiles net/http and the rest on a first build
//   (16 s instead of 1.5 s here). BUILD_ENV or the app's env vars may set CGO_ENABLED=0 for a static binary; the
//   sandbox has the host's libc either way;
// - web: the built binary, run in /app. A compile error fails the build with the compiler's lines in the build log.
import fs from "node:fs/promises";
import path from "node:path";
import { BuildError } from "./errors.ts";
import { READ_NOFOLLOW, hasProjectFile, readProjectFile, readText } from "./files.ts";
import type { BuildContext, Builder } from "./types.ts";

const HOST_GO = "/usr/bin/go";
/** Where the binary goes, relative to the release (the web process runs in /app). */
export const GO_BINARY = ".slipway/bin/app";

export const goBuilder: Builder = {
  name: "go",
  looksFor: "go.mod",
  toolchains: [{ command: HOST_GO, debianPackage: "golang-go" }],
  async detect(ctx) {
    const goMod = await readProjectFile(ctx.dir, "go.mod", 1024 ** 2);
    if (!goMod) return null;
    const mod = parseGoMod(readText(goMod));
    const go = await chooseGo(ctx, mod.goLine);
    const pkg = await mainPackage(ctx.dir, mod.module);
    const vendored = await hasVendorModules(ctx.dir);
    if (vendored) ctx.log("vendor/modules.txt found: building from vendor/ (-mod=vendor).");
    const env = {
      GOCACHE: `${ctx.cachePath}/go-build`,
      GOMODCACHE: `${ctx.cachePath}/go-mod`,
      GOPATH: `${ctx.cachePath}/go-path`,
      GOTOOLCHAIN: "local",
    };
    ctx.log(`Building ${pkg} into ${GO_BINARY}: web defaults to ./${GO_BINARY} (a Procfile web: line replaces it).`);
    const argv = [go.path, "build", ...(vendored ? ["-mod=vendor"] : []), "-ldflags=-s -w", "-o", GO_BINARY, pkg];
    return {
      builder: "go",
      steps: [{ label: `go build ${pkg} (${go.name})`, argv, env }],
      web: { kind: "process", argv: [`./${GO_BINARY}`] },
    };
  },
};

interface GoMod {
  /** The module path, or null when go.mod has no module line. */
  module: string | null;
  /** The `go` line's version ("1.21", "1.22.3"), or null without one. */
  goLine: string | null;
}

export function parseGoMod(text: string): GoMod {
  const module = /^module\s+"?([^\s"]+)"?\s*(?:\/\/.*)?$/m.exec(text)?.[1] ?? null;
  const goLine = /^go\s+(\S+)\s*(?:\/\/.*)?$/m.exec(text)?.[1] ?? null;
  return { module, goLine };
}

interface GoToolchain {
  /** The go command to run (under /usr, so every sandbox has it). */
  path: string;
  version: number[];
  /** "Go 1.19.8". */
  name: string;
}

/** The host's Go when it is new enough for go.mod's go line, else the oldest installed one that is. */
async function chooseGo(ctx: BuildContext, goLine: string | null): Promise<GoToolchain> {
  const installed = await installedGos();
  const fallback = installed.find((g) => g.path === HOST_GO) ?? installed[0] ?? { path: HOST_GO, version: [], name: "Go" };
  if (!goLine) return fallback;
  const wanted = parseVersion(goLine);
  if (!wanted) throw new BuildError(`go.mod's go line asks for ${JSON.stringify(goLine)}, which is not a Go version (expected one like 1.21 or 1.22.3).`);
  const newEnough = (g: GoToolchain) => compareVersions(g.version, wanted) >= 0;
  const chosen = newEnough(fallback) && fallback.version.length ? fallback : installed.filter(newEnough).sort((a, b) => compareVersions(a.version, b.version))[0];
  if (!chosen) {
    const have = installed.length ? installed.map((g) => g.version.join(".")).join(", ") : "none";
    throw new BuildError(
      `go.mod's go line asks for Go ${goLine}, newer than any Go this server has (installed: ${have}). ` +
        "Lower the go line to an installed version if your code allows, or ask the operator to install a newer Go.",
    );
  }
  if (chosen !== fallback) ctx.log(`go.mod asks for Go ${goLine}: using ${chosen.path} (${chosen.name}).`);
  return chosen;
}

/** /usr/bin/go and every /usr/lib/go-1.N (Debian's layout), with the version their GOROOT's VERSION file names. */
async function installedGos(): Promise<GoToolchain[]> {
  const hostRoot = await fs.realpath(HOST_GO).then((go) => path.dirname(path.dirname(go)), () => null);
  const roots = new Set<string>(hostRoot ? [hostRoot] : []);
  for (const name of await fs.readdir("/usr/lib").catch(() => [] as string[])) {
    if (/^go(-[\d.]+)?$/.test(name)) roots.add(await fs.realpath(path.join("/usr/lib", name)).catch(() => path.join("/usr/lib", name)));
  }
  const found: GoToolchain[] = [];
  for (const root of roots) {
    const go = path.join(root, "bin/go");
    if (!(await fs.access(go, fs.constants.X_OK).then(() => true, () => false))) continue;
    const stamp = await fs.readFile(path.join(root, "VERSION"), "utf8").catch(() => "");
    const version = parseVersion(/^go(\S+)/.exec(stamp)?.[1] ?? /go-([\d.]+)$/.exec(root)?.[1] ?? "");
    if (!version) continue;
    found.push({ path: root === hostRoot ? HOST_GO : go, version, name: `Go ${version.join(".")}` });
  }
  return found;
}

function parseVersion(text: string): number[] | null {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return match ? match.slice(1).filter((part) => part !== undefined).map(Number) : null;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** vendor/modules.txt in a vendor/ that is a folder of the project (not a link out of it). */
async function hasVendorModules(dir: string): Promise<boolean> {
  const vendor = await fs.lstat(path.join(dir, "vendor")).catch(() => null);
  return !!vendor?.isDirectory() && (await hasProjectFile(path.join(dir, "vendor"), "modules.txt").catch(() => false));
}

/** `.` when the top is a main package, else `./cmd/<name>`; a BuildError saying what to do otherwise. */
async function mainPackage(dir: string, module: string | null): Promise<string> {
  if (await isMainPackage(dir)) return ".";
  const cmd = await fs.lstat(path.join(dir, "cmd")).catch(() => null);
  const named = module?.split("/").filter((part) => !/^v\d+$/.test(part)).at(-1) ?? null;
  if (cmd?.isDirectory()) {
    const entries = await fs.readdir(path.join(dir, "cmd"), { withFileTypes: true });
    const folders = entries.filter((e) => e.isDirectory() && /^[A-Za-z0-9][\w.-]*$/.test(e.name)).map((e) => e.name).sort();
    const chosen = folders.length === 1 ? folders[0] : folders.find((name) => name === named);
    if (chosen) return `./cmd/${chosen}`;
    if (folders.length) {
      throw new BuildError(
        `cmd/ holds ${folders.join(", ")}: Slipway builds cmd/<name> when cmd/ holds one folder, or the one named like the module's last path element` +
          `${named ? ` (cmd/${named})` : ""}. Rename the one that serves the app, or make the top of the project its main package.`,
      );
    }
  }
  throw new BuildError(
    "No main package to build: the .go files at the top of the project are not `package main`, and there is no cmd/<name> folder. " +
      "Put the server's main package at the top, or in cmd/<name>.",
  );
}

/** Whether a .go file at the top (tests aside) declares `package main`; reads only each file's beginning, never through a link. */
async function isMainPackage(dir: string): Promise<boolean> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".go") || entry.name.endsWith("_test.go")) continue;
    if (/^\s*package\s+main\b/m.test(await readStart(path.join(dir, entry.name)))) return true;
  }
  return false;
}

async function readStart(file: string): Promise<string> {
  const handle = await fs.open(file, READ_NOFOLLOW).catch(() => null);
  if (!handle) return "";
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
