// What one zip entry may be, decided from the central directory before anything is written:
// - its name is decoded as the archive says (UTF-8 flag, Info-ZIP Unicode path, else CP437); backslashes
//   count as separators, "." and empty segments are dropped;
// - refused: an empty name, NUL, an absolute path (/x, C:x, //server), any ".." segment, over-long names;
// - refused: symlinks, devices, FIFOs, sockets (the Unix file type in the external attributes);
// - refused: encrypted entries and compression methods other than stored and deflate;
// - skipped: macOS's __MACOSX/ resource-fork folder;
// - files keep only their executable bit (0755 or 0644), never setuid or other mode bits.
import yauzl from "yauzl";
import { InvalidRequestError } from "../../errors.ts";

export type EntryPlan =
  | { kind: "dir"; name: string; path: string }
  | {
      kind: "file";
      name: string;
      path: string;
      mode: number;
      size: number;
      compressedSize: number;
      crc32: number;
      entry: yauzl.Entry;
    }
  | { kind: "skip" };

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const MSDOS_DIRECTORY = 0x10;
const MAX_SEGMENT_BYTES = 255;
const MAX_PATH_BYTES = 1024;

export function entryError(name: string, problem: string): InvalidRequestError {
  return new InvalidRequestError(`The zip entry ${JSON.stringify(name)} ${problem}.`);
}

/** The entry's name as written in the archive (backslashes kept, so messages show what the user's tool wrote). */
export function entryName(entry: yauzl.Entry): string {
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
}

export function planEntry(entry: yauzl.Entry): EntryPlan {
  const name = entryName(entry);
  const segments = safeSegments(name);
  if (segments[0] === "__MACOSX") return { kind: "skip" };
  const relative = segments.join("/");
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  const msdosDir = type === 0 && (entry.externalFileAttributes & MSDOS_DIRECTORY) !== 0;
  const isDir = name.endsWith("/") || name.endsWith("\\") || type === S_IFDIR || msdosDir;

  if (type === S_IFLNK) throw entryError(name, "is a symbolic link; zips with links are refused, put the file itself in the zip");
  if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) {
    throw entryError(name, "is a special file (device, FIFO or socket), not a regular file or folder");
  }
  if (entry.isEncrypted()) throw entryError(name, "is encrypted; upload a zip without a password");
  if (isDir) return segments.length ? { kind: "dir", name, path: relative } : { kind: "skip" };
  if (!segments.length) throw entryError(name, "has an empty name");
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    throw entryError(name, `uses compression method ${entry.compressionMethod}; only stored and deflate are supported`);
  }
  const executable = ((entry.externalFileAttributes >>> 16) & 0o111) !== 0;
  return {
    kind: "file",
    name,
    path: relative,
    mode: executable ? 0o755 : 0o644,
    size: entry.uncompressedSize,
    compressedSize: entry.compressedSize,
    crc32: entry.crc32,
    entry,
  };
}

/** The name's path segments, or an error saying why it could land outside the project. */
function safeSegments(name: string): string[] {
  if (name.includes("\0")) throw entryError(name, "contains a NUL character");
  if (/^([a-zA-Z]:|[/\\])/.test(name)) throw entryError(name, "has an absolute path; entries must be relative to the project");
  const segments = name.split(/[/\\]/).filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw entryError(name, 'points outside the project (".." in its path)');
  if (Buffer.byteLength(name) > MAX_PATH_BYTES || segments.some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES)) {
    throw entryError(name, `has a name too long (at most ${MAX_SEGMENT_BYTES} bytes per folder or file name, ${MAX_PATH_BYTES} in all)`);
  }
  return segments;
}
