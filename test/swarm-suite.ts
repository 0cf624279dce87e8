// npm run test:swarm: the shared hosting suite on the swarm runtime driver (SLIPWAY_TEST_RUNTIME=swarm) on a
// single-node swarm (the local engine is made a manager through the Engine API and left so), plus the
// swarm-only tests (rollouts, rollback, scaling, isolation, registry). Where no Docker engine answers or
// it cannot become a manager, says so and skips: never a silent pass.
import { spawnSync } from "node:child_process";
import { LANGUAGE_SUITE, SHARED_SUITE } from "./shared-suite.ts";
import { dockerUnavailable } from "./helpers/runtime.ts";
import { ensureSwarm } from "./helpers/swarm.ts";

const SWARM_ONLY = ["test/hosting/swarm.test.ts", "test/hosting/swarm-registry.test.ts", "test/hosting/dockerfile.test.ts", "test/hosting/processes.test.ts", "test/hosting/run-terminal.test.ts", "test/cluster/instances.test.ts", ...LANGUAGE_SUITE];

const unavailable = (await dockerUnavailable()) ?? (await ensureSwarm());
if (unavailable) {
  console.warn(`\n*** swarm runtime suite SKIPPED: ${unavailable} ***\n`);
  process.exit(0);
}
const files = process.argv.slice(2).length ? process.argv.slice(2) : [...SHARED_SUITE.filter((f) => !f.includes("docker-sandbox")), ...SWARM_ONLY];
// A Swarm rollout waits for each new task's health check and the update monitor (3 s): the shared tests that roll an
// app out several times (a database restore: stop, then start again) need more than the default 60 s.
// --retry=1: a Swarm rollout waits on health checks and the update monitor; under heavy machine load one of the
// longer tests (four rollouts of one app) failed once here while other suites ran beside it. A second failure fails CI.
const result = spawnSync("npx", ["vitest", "run", ...files, "--maxWorkers=1", "--testTimeout=150000", "--retry=1"], { stdio: "inherit", env: { ...process.env, SLIPWAY_TEST_RUNTIME: "swarm" } });
process.exit(result.status ?? 1);
