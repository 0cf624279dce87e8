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
  version: string;
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
  /** Absolute paths under /usr (or /lib, /bin…, which are in /usr) of regular files (folders are implied). */
  files: string[];
  /** Symlinks there, with their own targets (never followed here). */
  links: Map<string, string>;
}

/** The installed packages for these names and the files they put under /usr; names not installed are skipped. */
export async function hostPackages(wanted: readonly (string | RegExp)[]): Promise<HostPackages> {
  const found: HostPackages = { versions: [], files: [], links: new Map() };
  if (wanted.length === 0) return found;
  const files = new Set<string>();
  for (const { name, listName, version } of choose(wanted, await installedPackages())) {
    found.versions.push(`${name}=${version}`);
    await addPackageFiles(listName, files, found.links);
  }
  found.versions.sort();
  found.files = [...files].sort();
  return found;
}

function choose(wanted: readonly (string | RegExp)[], installed: Map<string, Package>): Package[] {
  const providers = new Map<string, string>();
  for (const p of installed.values()) for (const virtual of p.provides) if (!providers.has(virtual)) providers.set(virtual, p.name);
  const resolve = (name: string) => (installed.has(name) ? name : providers.get(name));
  const roots = wanted.flatMap((want) => (typeof want === "string" ? [resolve(want)] : [...installed.keys()].filter((name) => want.test(name))));
  const chosen = new Map<string, Package>();
  const queue = roots.filter((name): name is string => name !== undefined);
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

async function installedPackages(): Promise<Map<string, Package>> {
  const format = "${Package}\\t${binary:Package}\\t${db:Status-Status}\\t${Essential}\\t${Version}\\t${Provides}\\t${Pre-Depends}, ${Depends}\\n";
  const { stdout } = await run("dpkg-query", ["-W", "-f", format], { maxBuffer: 64 * 1024 * 1024 }).catch(() => ({ stdout: "" }));
  const packages = new Map<string, Package>();
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

/** The package's regular files and links in what containers see, from dpkg's own list (which names its folders too). */
async function addPackageFiles(listName: string, files: Set<string>, links: Map<string, string>): Promise<void> {
  const text = await fs.readFile(`/var/lib/dpkg/info/${listName}.list`, "utf8").catch(() => "");
  for (const file of text.split("\n")) {
    if (!USR.test(file) || SKIPPED_PATHS.test(file) || GO_TESTS.test(file)) continue;
    const stat = await fs.lstat(file).catch(() => null);
    if (stat?.isFile()) files.add(file);
    else if (stat?.isSymbolicLink()) links.set(file, await fs.readlink(file));
  }
}
