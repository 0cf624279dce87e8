// The hosting tests that every runtime driver passes (npm run test:docker, npm run test:swarm).

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
