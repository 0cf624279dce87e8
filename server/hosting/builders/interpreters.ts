// Choosing a language's interpreter among those the host has installed (what every sandbox sees in /usr/bin): the
// version a project pins (.python-version, runtime.txt, .ruby-version), matched on major.minor, or the host's
// default. Nothing is ever downloaded: a version the host lacks fails the build naming the ones it has.
import fs from "node:fs/promises";
import path from "node:path";
import { BuildError } from "./errors.ts";
import { readProjectFile, readText } from "./files.ts";

export interface Interpreter {
  /** Absolute path on the host, and in the sandbox. */
  path: string;
  /** major.minor: "3.11". */
  version: string;
  /** For the build log: "Python 3.11". */
  name: string;
}

export interface Language {
  /** "Python", "Ruby". */
  name: string;
  /** The host's default interpreter ("/usr/bin/python3"), a link to one of the versioned ones. */
  hostDefault: string;
  /** A versioned interpreter's file name in /usr/bin, capturing major and minor: /^python(3)\.(\d+)$/. */
  versioned: RegExp;
  /** What a version file may put before the number ("python-3.11.2", "ruby-3.1"). */
  prefix: RegExp;
}

export interface Pinned {
  /** The file that asks, for the messages. */
  file: string;
  version: string;
}

/** The interpreter the project pins among those installed, or the host's default when it pins none. */
export async function chooseInterpreter(language: Language, pinned: Pinned | null, log: (line: string) => void): Promise<Interpreter> {
  const installed = await installedInterpreters(language);
  if (!pinned) {
    const hostDefault = await fs.realpath(language.hostDefault).catch(() => null);
    const found = installed.find((i) => i.path === hostDefault) ?? installed[0];
    return found ?? { path: language.hostDefault, version: "", name: path.basename(language.hostDefault) };
  }
  const wanted = pinned.version.replace(language.prefix, "");
  const minor = /^(\d+)\.(\d+)/.exec(wanted);
  if (!minor) throw new BuildError(`${pinned.file} asks for ${language.name} ${JSON.stringify(wanted)}: expected a version like ${installed[0]?.version ?? "3.11"} or ${installed[0]?.version ?? "3.11"}.2.`);
  const match = installed.find((i) => i.version === `${minor[1]}.${minor[2]}`);
  if (!match) {
    const have = installed.length ? installed.map((i) => i.version).join(", ") : "none";
    throw new BuildError(`${pinned.file} asks for ${language.name} ${wanted}, which this server does not have (installed: ${have}). Ask for one of those, or remove ${pinned.file}.`);
  }
  log(`${pinned.file} asks for ${language.name} ${wanted}: using ${match.path} (${match.name}).`);
  return match;
}

/** The first line of a version file that is neither blank nor a comment, or null without one. */
export async function readPinned(dir: string, file: string): Promise<Pinned | null> {
  const contents = await readProjectFile(dir, file, 1024);
  if (!contents) return null;
  const version = readText(contents).split(/\r?\n/).map((line) => line.trim()).find((line) => line && !line.startsWith("#"));
  return version ? { file, version } : null;
}

/** The language's versioned interpreters in /usr/bin, newest first. */
async function installedInterpreters(language: Language): Promise<Interpreter[]> {
  const names = await fs.readdir("/usr/bin").catch(() => [] as string[]);
  const found: (Interpreter & { order: number })[] = [];
  for (const name of names) {
    const match = language.versioned.exec(name);
    if (!match) continue;
    const file = path.join("/usr/bin", name);
    if (!(await fs.access(file, fs.constants.X_OK).then(() => true, () => false))) continue;
    const version = `${match[1]}.${match[2]}`;
    found.push({ path: file, version, name: `${language.name} ${version}`, order: Number(match[1]) * 1000 + Number(match[2]) });
  }
  return found.sort((a, b) => b.order - a.order).map(({ order: _order, ...interpreter }) => interpreter);
}
