// Uploaded zips become release directories (server/hosting/source/zip.ts). Malicious archives are crafted here,
// with yazl and, for what yazl refuses to write, by patching the bytes it wrote. After every refusal the test
// checks that nothing was written outside the destination and that no partial release is left behind.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import yazl from "yazl";
import { InvalidRequestError } from "../../server/errors.ts";
import { defaultZipLimits, extractZip, zipSource } from "../../server/hosting/source/zip.ts";

type Spec = { name: string; data?: string | Buffer; mode?: number; dir?: boolean; compress?: boolean };

async function makeZip(entries: Spec[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    if (e.dir) zip.addEmptyDirectory(e.name, { mode: e.mode });
    else zip.addBuffer(Buffer.from(e.data ?? `contents of ${e.name}\n`), e.name, { mode: e.mode, compress: e.compress ?? true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Replaces every occurrence (local and central headers) of a same-length placeholder name. */
function rename(zip: Buffer, placeholder: string, name: string): Buffer {
  const from = Buffer.from(placeholder);
  const to = Buffer.from(name);
  expect(to.length).toBe(from.length);
  let at = zip.indexOf(from);
  expect(at).toBeGreaterThan(-1);
  while (at !== -1) {
    to.copy(zip, at);
    at = zip.indexOf(from, at + 1);
  }
  return zip;
}

/** Offsets of the central directory headers, in entry order. */
function centralHeaders(zip: Buffer): number[] {
  const sig = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  const offsets: number[] = [];
  for (let at = zip.indexOf(sig); at !== -1; at = zip.indexOf(sig, at + 1)) offsets.push(at);
  return offsets;
}

let base: string;
let zipPath: string;
let dest: string;

beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "slipway-zip-"));
  await fs.mkdir(path.join(base, "releases"));
  zipPath = path.join(base, "upload.zip");
  dest = path.join(base, "releases", "r1");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function tree(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.map((e) => e.split(path.sep).join("/")).sort();
}

/** Extracting zip must fail with a 400 whose message matches, leaving base exactly as it was. */
async function expectRefused(zip: Buffer, message: RegExp, limits = defaultZipLimits): Promise<void> {
  await fs.writeFile(zipPath, zip);
  const before = await tree(base);
  const error = await extractZip(zipPath, dest, limits).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidRequestError);
  expect((error as InvalidRequestError).status).toBe(400);
  expect((error as Error).message).toMatch(message);
  expect(await tree(base)).toEqual(before);
}

describe("extractZip: good archives", () => {
  it("extracts nested folders, keeps the executable bit and nothing more", async () => {
    await fs.writeFile(
      zipPath,
      await makeZip([
        { name: "package.json", data: "{}" },
        { name: "src/", dir: true },
        { name: "src/lib/util.js", data: "export {}" },
        { name: "bin/start.sh", data: "#!/bin/sh\n", mode: 0o104755 },
        { name: "stored.txt", data: "not compressed", compress: false },
      ]),
    );
    const summary = await extractZip(zipPath, dest);
    expect(summary).toMatchObject({ files: 4, unwrapped: undefined });
    expect(await tree(dest)).toEqual(["bin", "bin/start.sh", "package.json", "src", "src/lib", "src/lib/util.js", "stored.txt"]);
    expect(await fs.readFile(path.join(dest, "src/lib/util.js"), "utf8")).toBe("export {}");
    expect(await fs.readFile(path.join(dest, "stored.txt"), "utf8")).toBe("not compressed");
    expect((await fs.stat(path.join(dest, "bin/start.sh"))).mode & 0o7777).toBe(0o755);
    expect((await fs.stat(path.join(dest, "package.json"))).mode & 0o7777).toBe(0o644);
    expect(await tree(path.join(base, "releases"))).toEqual(["r1", ...(await tree(dest)).map((p) => `r1/${p}`)]);
  });

  it("unwraps a single top-level folder, as GitHub's Download ZIP makes, and skips macOS's __MACOSX", async () => {
    await fs.writeFile(
      zipPath,
      await makeZip([
        { name: "site-main/", dir: true },
        { name: "site-main/index.html", data: "<h1>hi</h1>" },
        { name: "site-main/css/a.css", data: "body{}" },
        { name: "__MACOSX/site-main/._index.html", data: "resource fork" },
      ]),
    );
    const lines: string[] = [];
    await zipSource(zipPath).fetch(dest, (line) => lines.push(line));
    expect(await tree(dest)).toEqual(["css", "css/a.css", "index.html"]);
    expect(lines.join("\n")).toMatch(/site-main\//);
    expect(await fs.readdir(path.join(base, "releases"))).toEqual(["r1"]);
  });

  it("counts what it extracted in the build log, in words for one file as for many", async () => {
    await fs.writeFile(zipPath, await makeZip([{ name: "server.js", data: "x" }]));
    const lines: string[] = [];
    await zipSource(zipPath).fetch(dest, (line) => lines.push(line));
    expect(lines).toEqual(["Extracted 1 file (1 byte) from the zip."]);
  });

  it("does not unwrap when the top level holds more than one thing", async () => {
    await fs.writeFile(zipPath, await makeZip([{ name: "app/server.js" }, { name: "README.md" }]));
    await extractZip(zipPath, dest);
    expect(await tree(dest)).toEqual(["README.md", "app", "app/server.js"]);
  });

  it("accepts backslash separators written by Windows tools", async () => {
    const zip = rename(await makeZip([{ name: "src_a.js" }, { name: "index.js" }]), "src_a.js", "src\\a.js");
    await fs.writeFile(zipPath, zip);
    await extractZip(zipPath, dest);
    expect(await tree(dest)).toEqual(["index.js", "src", "src/a.js"]);
  });
});

describe("extractZip: entries that would escape the project", () => {
  it.each([
    ["../x", "__/x"],
    ["a/../../x", "a/__/__/x"],
    ["..\\x", "____"],
    ["a\\..\\..\\x", "aZ__Z__Zx"],
  ])("refuses %s, naming it", async (name, placeholder) => {
    const zip = rename(await makeZip([{ name: "ok.txt" }, { name: placeholder }]), placeholder, name);
    await expectRefused(zip, new RegExp(`${JSON.stringify(name).replace(/[\\.]/g, "\\$&")}.*outside the project`));
    await expect(fs.access(path.join(base, "x"))).rejects.toThrow();
    await expect(fs.access(path.join(base, "releases", "x"))).rejects.toThrow();
  });

  it.each([
    ["/tmp/x", "Ztmp/x"],
    ["C:/x", "CZ/x"],
    ["\\\\srv\\x", "ZZsrvZx"],
  ])("refuses the absolute path %s", async (name, placeholder) => {
    const zip = rename(await makeZip([{ name: placeholder }]), placeholder, name);
    await expectRefused(zip, /absolute path/);
  });
});

describe("extractZip: entries that are not plain files or folders", () => {
  it("refuses a symlink entry", async () => {
    const zip = await makeZip([{ name: "ok.txt" }, { name: "link", data: "/etc/passwd", mode: 0o120777 }]);
    await expectRefused(zip, /"link" is a symbolic link/);
  });

  it.each([
    ["a character device", 0o020644],
    ["a block device", 0o060644],
    ["a FIFO", 0o010644],
    ["a socket", 0o140644],
  ])("refuses %s", async (_kind, mode) => {
    await expectRefused(await makeZip([{ name: "dev", data: "", mode }]), /"dev" is a special file/);
  });

  it("refuses an encrypted entry", async () => {
    const zip = await makeZip([{ name: "secret.txt" }]);
    const [central] = centralHeaders(zip);
    zip.writeUInt16LE(zip.readUInt16LE(central + 8) | 1, central + 8);
    await expectRefused(zip, /"secret.txt" is encrypted/);
  });

  it("refuses duplicate entries and a file where a folder is needed", async () => {
    await expectRefused(await makeZip([{ name: "a.js" }, { name: "a.js" }]), /"a.js" appears twice/);
    await expectRefused(await makeZip([{ name: "a" }, { name: "a/b.js" }]), /"a\/b.js" is inside "a"/);
    await expectRefused(await makeZip([{ name: "a/b.js" }, { name: "a" }]), /"a" appears twice.*file and a folder/);
  });
});

describe("extractZip: zip bombs and limits", () => {
  const zeros = (bytes: number) => Buffer.alloc(bytes);

  it("refuses an archive whose declared expanded size passes the limit", async () => {
    const zip = await makeZip([{ name: "a.bin", data: zeros(600_000) }, { name: "b.bin", data: zeros(600_000) }]);
    await expectRefused(zip, /"b.bin" takes the zip past 1000 KiB/, { ...defaultZipLimits, maxBytes: 1_024_000 });
  });

  it("refuses a highly compressible large entry by its ratio, with the default limits", async () => {
    await expectRefused(await makeZip([{ name: "bomb.bin", data: zeros(8 * 1024 ** 2) }]), /"bomb.bin" expands more than 200 times/);
  });

  it("stops inflating an entry whose header understates its size", async () => {
    const zip = await makeZip([{ name: "ok.txt" }, { name: "liar.bin", data: zeros(4 * 1024 ** 2) }]);
    const liar = centralHeaders(zip)[1];
    zip.writeUInt32LE(1000, liar + 24); // uncompressed size: 1000 bytes, so no declared limit is hit
    await expectRefused(zip, /"liar.bin" expands to more than the 1000 bytes its header declares/);
  });

  it("refuses more entries than allowed before reading them", async () => {
    const entries = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.txt` }));
    await expectRefused(await makeZip(entries), /holds 11 entries; at most 10/, { ...defaultZipLimits, maxEntries: 10 });
  });
});

describe("extractZip: damaged files are 400s, never 500s", () => {
  it("refuses a corrupt entry (damaged compressed data)", async () => {
    const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => `line ${i} of the file\n`).join(""));
    const zip = await makeZip([{ name: "first.txt" }, { name: "data.txt", data }]);
    const at = zip.indexOf(Buffer.from("data.txt")) + "data.txt".length + 40;
    for (let i = 0; i < 64; i++) zip[at + i] ^= 0xa5;
    await expectRefused(zip, /"data.txt" is corrupt/);
  });

  it("refuses a stored entry whose bytes changed (checksum)", async () => {
    const zip = await makeZip([{ name: "plain.txt", data: "hello world", compress: false }]);
    zip.write("HELLO", zip.indexOf("hello world"));
    await expectRefused(zip, /"plain.txt" is corrupt \(checksum mismatch\)/);
  });

  it("refuses a truncated file", async () => {
    const zip = await makeZip([{ name: "a.txt", data: "a".repeat(10_000) }, { name: "b.txt" }]);
    await expectRefused(zip.subarray(0, Math.floor(zip.length / 2)), /not a valid zip file/);
  });

  it("refuses a file that is not a zip, and an empty file", async () => {
    await expectRefused(Buffer.from("<html>definitely not a zip</html>"), /not a valid zip file/);
    await expectRefused(Buffer.alloc(0), /not a valid zip file/);
  });

  it("refuses a zip with no files", async () => {
    await expectRefused(await makeZip([{ name: "empty/", dir: true }]), /holds no files/);
  });
});
