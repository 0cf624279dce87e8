// Checks an uploaded zip when it arrives (checkZip: a 400 naming the entry, nothing written) and extracts it into a
// new release directory in the deployment's fetch step (zipSource). Every entry is checked from the central
// directory (zip-entry.ts: names, types, encryption), the archive as a whole against limits (entry count, declared
// expanded size, compression ratio), and the bytes actually inflated are counted and checksummed, since headers
// can lie: at the check (into nothing), and again while extracting.
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import yauzl from "yauzl";
import { InvalidRequestError } from "../../errors.ts";
import { formatBytes, formatCount } from "../../format.ts";
import { stageInto } from "./staging.ts";
import type { Source } from "./types.ts";
import { entryError, planEntry, type EntryPlan } from "./zip-entry.ts";

export interface ZipLimits {
  /** Most bytes all files may expand to. */
  maxBytes: number;
  maxEntries: number;
  /** Highest expanded/compressed ratio of one entry larger than 1 MiB (source code compresses about 5:1). */
  maxRatio: number;
}

export const defaultZipLimits: ZipLimits = { maxBytes: 1024 ** 3, maxEntries: 20_000, maxRatio: 200 };

const RATIO_FROM_BYTES = 1024 ** 2;

export interface ZipSummary {
  files: number;
  bytes: number;
  /** The top-level folder that wrapped everything and was removed, if any. */
  unwrapped?: string;
}

type FilePlan = Extract<EntryPlan, { kind: "file" }>;
type DirPlan = Extract<EntryPlan, { kind: "dir" }>;

export function zipSource(zipPath: string, limits: ZipLimits = defaultZipLimits): Source {
  return {
    description: "the uploaded zip",
    async fetch(destDir, log) {
      const summary = await extractZip(zipPath, destDir, limits);
      if (summary.unwrapped) log(`The zip wraps everything in ${summary.unwrapped}/: using that folder as the project.`);
      log(`Extracted ${formatCount(summary.files, "file")} (${formatBytes(summary.bytes)}) from the zip.`);
    },
  };
}

/** Checks the whole zip, inflating every file into nothing: what extractZip would refuse, refused now. */
export async function checkZip(zipPath: string, limits: ZipLimits = defaultZipLimits): Promise<ZipSummary> {
  return withPlans(zipPath, limits, async (zip, plans, summary) => {
    for (const plan of plans) if (plan.kind === "file") await inflate(zip, plan, discard());
    return { ...summary, unwrapped: topFolder(plans) };
  });
}

/** Extracts zipPath into destDir (which must not exist); destDir appears only if every entry was valid. */
export async function extractZip(zipPath: string, destDir: string, limits: ZipLimits = defaultZipLimits): Promise<ZipSummary> {
  return withPlans(zipPath, limits, async (zip, plans, summary) => {
    const unwrapped = await stageInto(destDir, (root) => writeAll(zip, plans, root), { unwrap: true });
    return { ...summary, unwrapped };
  });
}

async function withPlans(zipPath: string, limits: ZipLimits, use: (zip: yauzl.ZipFile, plans: EntryPlan[], summary: ZipSummary) => Promise<ZipSummary>): Promise<ZipSummary> {
  const zip = await openZip(zipPath);
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new InvalidRequestError(`The zip holds ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed.`);
    }
    const plans = await readPlans(zip, limits);
    const files = plans.filter((p): p is FilePlan => p.kind === "file");
    if (!files.length) throw new InvalidRequestError("The zip holds no files.");
    return await use(zip, plans, { files: files.length, bytes: files.reduce((sum, f) => sum + f.size, 0) });
  } finally {
    zip.close();
  }
}

/** The folder wrapping everything, as extraction unwraps it (stageInto): the only thing at the top, a folder. */
function topFolder(plans: EntryPlan[]): string | undefined {
  const tops = new Set(plans.filter((p) => p.kind !== "skip").map((p) => (p as FilePlan | DirPlan).path.split("/")[0]));
  if (tops.size !== 1) return undefined;
  const [top] = tops;
  return plans.some((p) => p.kind === "file" && p.path === top) ? undefined : top;
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

async function openZip(zipPath: string): Promise<yauzl.ZipFile> {
  try {
    // Raw names (decodeStrings false) so zip-entry.ts decodes and judges them itself; sizes are checked there
    // and by meter() rather than by yauzl, so the messages name the entry.
    return await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false });
  } catch (error) {
    throw notAZip(error);
  }
}

function notAZip(error: unknown): unknown {
  if (error instanceof Error && !("code" in error)) {
    return new InvalidRequestError(`The upload is not a valid zip file (${error.message}).`);
  }
  return error;
}

/** Every entry's plan, refusing the archive on the first invalid entry, duplicate or exceeded limit. */
async function readPlans(zip: yauzl.ZipFile, limits: ZipLimits): Promise<EntryPlan[]> {
  const plans: EntryPlan[] = [];
  const layout = new Layout();
  let declared = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const plan = planEntry(entry);
      if (plan.kind === "skip") continue;
      layout.add(plan);
      if (plan.kind === "file") {
        declared += plan.size;
        if (declared > limits.maxBytes) {
          throw entryError(plan.name, `takes the zip past ${formatBytes(limits.maxBytes)} once extracted, the most allowed`);
        }
        if (plan.size > RATIO_FROM_BYTES && plan.size / Math.max(plan.compressedSize, 1) > limits.maxRatio) {
          throw entryError(plan.name, `expands more than ${limits.maxRatio} times (${formatBytes(plan.size)}); this looks like a zip bomb`);
        }
      }
      plans.push(plan);
    }
  } catch (error) {
    throw error instanceof InvalidRequestError ? error : notAZip(error);
  }
  return plans;
}

/** Refuses two entries for one path, and a file where another entry needs a folder. */
class Layout {
  private files = new Set<string>();
  private dirs = new Set<string>();
  private explicitDirs = new Set<string>();

  add(plan: FilePlan | DirPlan): void {
    const { name, path: p } = plan;
    if (this.files.has(p) || this.explicitDirs.has(p) || (plan.kind === "file" && this.dirs.has(p))) {
      throw entryError(name, "appears twice in the zip (or as both a file and a folder)");
    }
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) {
      const ancestor = parts.slice(0, i).join("/");
      if (this.files.has(ancestor)) throw entryError(name, `is inside ${JSON.stringify(ancestor)}, which the zip also holds as a file`);
      this.dirs.add(ancestor);
    }
    if (plan.kind === "file") {
      this.files.add(p);
    } else {
      this.explicitDirs.add(p);
      this.dirs.add(p);
    }
  }
}

async function writeAll(zip: yauzl.ZipFile, plans: EntryPlan[], root: string): Promise<void> {
  for (const plan of plans) {
    if (plan.kind === "skip") continue;
    const target = path.join(root, plan.path);
    // Defence in depth: planEntry already refused anything that could resolve outside root.
    if (!target.startsWith(root + path.sep)) throw entryError(plan.name, "points outside the project");
    if (plan.kind === "dir") await fs.mkdir(target, { recursive: true });
    else await writeFile(zip, plan, target);
  }
}

async function writeFile(zip: yauzl.ZipFile, plan: FilePlan, target: string): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true });
  await inflate(zip, plan, createWriteStream(target, { flags: "wx", mode: plan.mode }));
}

/** The entry's bytes, counted and checksummed on their way into `sink`. */
async function inflate(zip: yauzl.ZipFile, plan: FilePlan, sink: Writable): Promise<void> {
  let source;
  try {
    source = await zip.openReadStreamPromise(plan.entry);
  } catch (error) {
    throw corrupt(plan, error);
  }
  let sourceError: unknown;
  source.on("error", (error) => (sourceError ??= error));
  try {
    await pipeline(source, meter(plan), sink);
  } catch (error) {
    if (error instanceof InvalidRequestError) throw error;
    if (sourceError) throw corrupt(plan, sourceError);
    throw error;
  }
}

/** Counts and checksums the bytes actually inflated: a header that understates the size stops at its declared size. */
function meter(plan: FilePlan): Transform {
  let bytes = 0;
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > plan.size) {
        return done(entryError(plan.name, `expands to more than the ${plan.size} bytes its header declares; this looks like a zip bomb`));
      }
      crc = zlib.crc32(chunk, crc);
      done(null, chunk);
    },
    flush(done) {
      if (bytes !== plan.size) return done(corrupt(plan, new Error(`${bytes} bytes instead of the ${plan.size} declared`)));
      if (crc >>> 0 !== plan.crc32 >>> 0) return done(corrupt(plan, new Error("checksum mismatch")));
      done();
    },
  });
}

function corrupt(plan: FilePlan, error: unknown): InvalidRequestError {
  const reason = error instanceof Error ? error.message : String(error);
  return entryError(plan.name, `is corrupt (${reason}); the zip may be truncated or damaged`);
}
