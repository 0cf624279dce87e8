// npm run test:docker: the shared hosting suite on the docker runtime driver (SLIPWAY_TEST_RUNTIME=docker), plus the
// docker sandbox probes and the Dockerfile builder. Where no Docker engine answers, says so and skips: never a silent
// pass.
import { spawnSync } from "node:child_process";
import { dockerUnavailable } from "./helpers/runtime.ts";
import { LANGUAGE_SUITE, SHARED_SUITE } from "./shared-suite.ts";

/** Tests of what only container runtimes do, beyond the shared suite, and the languages on the base image's toolchains. */
const DOCKER_ONLY = ["test/hosting/dockerfile.test.ts", "test/hosting/processes.test.ts", "test/hosting/run-terminal.test.ts", "test/cluster/instances.test.ts", ...LANGUAGE_SUITE];

const unavailable = await dockerUnavailable();
if (unavailable) {
  console.warn(`\n*** docker runtime suite SKIPPED: ${unavailable} ***\n`);
  process.exit(0);
}
const files = process.argv.slice(2).length ? process.argv.slice(2) : [...SHARED_SUITE, ...DOCKER_ONLY];
const result = spawnSync("npx", ["vitest", "run", ...files, "--maxWorkers=1"], { stdio: "inherit", env: { ...process.env, SLIPWAY_TEST_RUNTIME: "docker" } });
process.exit(result.status ?? 1);
