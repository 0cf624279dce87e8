// npm run test:docker: the shared hosting suite on the docker runtime driver (SLIPWAY_TEST_RUNTIME=docker), plus the
// docker sandbox probes. Where no Docker engine answers, says so and skips: never a silent pass.
import { spawnSync } from "node:child_process";
import { dockerUnavailable } from "./helpers/runtime.ts";

/** The hosting tests that hold for every driver; bwrap/namespace internals (runtime, sandbox*) stay local-only. */
export const SHARED_SUITE = [
  "test/hosting/deploys.test.ts",
  "test/hosting/logs.test.ts",
  "test/hosting/restart.test.ts",
  "test/hosting/apps.test.ts",
  "test/hosting/apps-live.test.ts",
  "test/hosting/github.test.ts",
  "test/hosting/github-webhook.test.ts",
  "test/data/postgres.test.ts",
  "test/data/resources.test.ts",
  "test/hosting/docker-sandbox.test.ts",
];

const unavailable = await dockerUnavailable();
if (unavailable) {
  console.warn(`\n*** docker runtime suite SKIPPED: ${unavailable} ***\n`);
  process.exit(0);
}
const files = process.argv.slice(2).length ? process.argv.slice(2) : SHARED_SUITE;
const result = spawnSync("npx", ["vitest", "run", ...files, "--maxWorkers=1"], { stdio: "inherit", env: { ...process.env, SLIPWAY_TEST_RUNTIME: "docker" } });
process.exit(result.status ?? 1);
