// The bench's own files (results, fixtures), whether it runs compiled (dist-bench/bench, `npm run bench`) or
// from its sources through tsx.
import path from "node:path";
import { projectRoot } from "../../server/platform/paths.ts";

export const BENCH_DIR = path.join(projectRoot, "bench");
