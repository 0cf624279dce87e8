// npm run test:postgres: the suite again with the platform's database on PostgreSQL (TEST_DATABASE=postgres), less
// what the database does not change. A new test file runs here unless it is listed below: what is left out is
// what would only run the same runtime, builder, browser or parser code a second time.
import { spawnSync } from "node:child_process";

/** Runtime, sandbox, builder and router behaviour: the same code whichever database records the app. */
const HOSTING_RUNTIME = [
  "test/hosting/python.test.ts",
  "test/hosting/languages.test.ts",
  "test/hosting/runtime*.test.ts",
  "test/hosting/sandbox*.test.ts",
  "test/hosting/docker-sandbox.test.ts",
  "test/hosting/dockerfile.test.ts",
  "test/hosting/swarm*.test.ts",
  "test/hosting/scaling.test.ts",
  "test/hosting/health-checks.test.ts",
  "test/hosting/health-rules.test.ts",
  "test/hosting/restart.test.ts",
  "test/hosting/run-terminal.test.ts",
  "test/hosting/run-outcome.test.ts",
  "test/hosting/router*.test.ts",
  "test/hosting/builders*.test.ts",
  "test/hosting/zip.test.ts",
  "test/hosting/failure-output.test.ts",
  "test/hosting/shown-command.test.ts",
  "test/hosting/status-pages.test.ts",
  "test/hosting/sleep.test.ts",
  "test/hosting/sleep/**",
  "test/hosting/processes/**",
  "test/hosting/cron/**",
];

/** Surfaces whose behaviour does not reach the database: the browser, the CLI, Caddy, parsers, request guards. */
const NOT_DATABASE = [
  "test/browser/**",
  "test/cli/**",
  "test/edge/**",
  "test/web/**",
  "test/api/cross-origin.test.ts",
  "test/api/guard.test.ts",
  "test/api/operation-limits.test.ts",
  "test/api/compiled-execution.test.ts",
  "test/platform/host-packages.test.ts",
  "test/platform/config.test.ts",
  "test/hosting/metrics/histogram-and-range.test.ts",
  "test/hosting/metrics/docker-stats.test.ts",
  "test/platform/outbound.test.ts",
  "test/platform/crash-loops.test.ts",
  "test/drains/**",
];

const excluded = [...HOSTING_RUNTIME, ...NOT_DATABASE].flatMap((pattern) => ["--exclude", pattern]);
const result = spawnSync("npx", ["vitest", "run", ...excluded, ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TEST_DATABASE: "postgres" },
});
process.exit(result.status ?? 1);
