// After `vite build`: writes a gzip (.gz) and a brotli (.br) copy next to every text file of the built
// dashboard, at the highest levels, once, so the server sends them as they are (server/http/web.ts).
// A copy that would not be smaller is not written.
import fs from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { promisify } from "node:util";

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);
const TEXT = /\.(js|mjs|css|html|svg|json|txt|map|webmanifest|xml)$/;

async function* files(dir) {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(file);
    else if (TEXT.test(entry.name)) yield file;
  }
}

const root = path.resolve(process.argv[2] ?? "build");
let count = 0;
for await (const file of files(root)) {
  const data = await fs.readFile(file);
  const [gz, br] = await Promise.all([
    gzip(data, { level: zlib.constants.Z_BEST_COMPRESSION }),
    brotli(data, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    }),
  ]);
  for (const [suffix, compressed] of [[".gz", gz], [".br", br]]) {
    if (compressed.length < data.length) await fs.writeFile(file + suffix, compressed);
    else await fs.rm(file + suffix, { force: true });
  }
  count += 1;
}
console.log(`precompressed ${count} files in ${path.relative(process.cwd(), root) || "."} (gzip, brotli)`);
