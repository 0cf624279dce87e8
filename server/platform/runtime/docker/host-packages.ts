// The files under /usr of the Debian packages the builders run (python3, golang-go, ruby, php-fpm…), for the base
// image: the local sandbox sees the host's whole /usr, and a build or app container must find the same programs at
// the same paths. Which packages: those asked for by name, the installed ones a pattern asks for (the host's gems
// such as puma, PHP extensions), and what they depend on (installed ones only, the first installed alternative).
// Essential packages (coreutils, dpkg, bash…: the base image has the tools builds call) and init machinery are left
// out, and so are docs, man pages and translations.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Never needed inside a container, yet pulled in by php-fpm (systemd) and maintainer-script tooling. */
const NEVER = new Set(["systemd", "libsystemd-shared", "init-system-helpers", "debconf", "ucf", "dpkg", "perl", "perl-base", "perl-modules-5.36", "sensible-utils", "procps", "psmisc", "adduser", "passwd", "login"]);
const SKIPPED_PATHS = /^\/usr\/share\/(doc|doc-base|man|info|locale|lintian|bug|menu|applications|icons|pixmaps)\//;
/** Go's own tests and their data: about a third of the Go source, never read by `go build`. */
const GO_TESTS = /^\/usr\/share\/go-[^/]+\/(test\/|.*\/testdata\/|.*_test\.go$)/;
/** What containers see of the host's file system, as the local sandbox does: /usr, and /lib and /bin, which are in /usr. */
const USR = /^\/(usr|lib|lib64|bin|sbin)\//;

interface Package {
  name: string;
  /** dpkg's name for it, with the architecture of a multi-arch package ("libc6:amd64"). */
  listName: string;
  essential: boolean;
  provides: string[];
  /** Each requirement: its alternatives, in order. */
  requires: string[][];
}

export interface HostPackages {
  /** The packages chosen, with their versions ("python3.11=3.11.2-6"), sorted: part of the base image's tag. */
  versions: string[];
  /** Absolute paths under /usr (or /lib, /bin…, which are in /usr): regular files and symlinks (folders are implied). */
  files: string[];
}

/** The installed packages for these names and the files they put under /usr; names not installed are skipped. */
export async function hostPackages(wanted: readonly (string | RegExp)[]): Promise<HostPackages> {
  if (wanted.length === 0) return { versions: [], files: [] };
  const installed = await installedPackages();
  if (installed.size === 0) return { versions: [], files: [] };
  const chosen = choose(wanted, installed);
  const versions: string[] = [];
  const files = new Set<string>();
  for (const { name, listName, version } of chosen) {
    versions.push(`${name}=${version}`);
    for (const file of await packageFiles(listName)) if (USR.test(file) && !SKIPPED_PATHS.test(file) && !GO_TESTS.test(file)) files.add(file);
  }
  return { versions: versions.sort(), files: [...files].sort() };
}

function choose(wanted: readonly (string | RegExp)[], installed: Map<string, Package & { version: string }>): (Package & { version: string })[] {
  const providers = new Map<string, string>();
  for (const p of installed.values()) for (const virtual of p.provides) if (!providers.has(virtual)) providers.set(virtual, p.name);
  const resolve = (name: string) => (installed.has(name) ? name : providers.get(name));
  const roots = new Set<string>();
  for (const want of wanted) {
    if (typeof want === "string") roots.add(resolve(want) ?? "");
    else for (const name of installed.keys()) if (want.test(name)) roots.add(name);
  }
  const chosen = new Map<string, Package & { version: string }>();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.shift()!;
    const p = installed.get(name);
    if (!p || chosen.has(name) || p.essential || NEVER.has(name)) continue;
    chosen.set(name, p);
    for (const alternatives of p.requires) {
      const found = alternatives.map(resolve).find((n) => n !== undefined);
      if (found) queue.push(found);
    }
  }
  return [...chosen.values()];
}

async function installedPackages(): Promise<Map<string, Package & { version: string }>> {
  const format = "${Package}\\t${binary:Package}\\t${db:Status-Status}\\t${Essential}\\t${Version}\\t${Provides}\\t${Pre-Depends}, ${Depends}\\n";
  const { stdout } = await run("dpkg-query", ["-W", "-f", format], { maxBuffer: 64 * 1024 * 1024 }).catch(() => ({ stdout: "" }));
  const packages = new Map<string, Package & { version: string }>();
  for (const line of stdout.split("\n")) {
    const [name, listName, status, essential, version, provides, requires] = line.split("\t");
    if (status !== "installed") continue;
    packages.set(name, { name, listName, version, essential: essential === "yes", provides: names(provides), requires: relations(requires) });
  }
  return packages;
}

/** "foo (= 1), bar:any | baz" → [["foo"], ["bar", "baz"]]. */
function relations(field: string | undefined): string[][] {
  return (field ?? "")
    .split(",")
    .map((requirement) => names(requirement.replaceAll("|", ",")))
    .filter((alternatives) => alternatives.length > 0);
}

function names(field: string | undefined): string[] {
  return (field ?? "")
    .split(",")
    .map((entry) => entry.replace(/\(.*?\)/g, "").replace(/:\w+/, "").trim())
    .filter(Boolean);
}

/** The package's files from dpkg's own list (folders included: the caller keeps files and links). */
async function packageFiles(listName: string): Promise<string[]> {
  const text = await fs.readFile(`/var/lib/dpkg/info/${listName}.list`, "utf8").catch(() => "");
  const files: string[] = [];
  for (const file of text.split("\n")) {
    if (!file) continue;
    const stat = await fs.lstat(file).catch(() => null);
    if (stat && (stat.isFile() || stat.isSymbolicLink())) files.push(file);
  }
  return files;
}
