// The hosting tests that every runtime driver passes (npm run test:docker, npm run test:swarm).

/** The hosting tests that hold for every driver; bwrap/namespace internals (runtime, sandbox*) stay local-only. */
export const SHARED_SUITE = [
  "test/hosting/deploys.test.ts",
  "test/hosting/logs.test.ts",
  "test/hosting/restart.test.ts",
  "test/hosting/sleep.test.ts",
  "test/hosting/apps.test.ts",
  "test/hosting/apps-live.test.ts",
  "test/hosting/github.test.ts",
  "test/hosting/github-webhook.test.ts",
  "test/data/postgres.test.ts",
  "test/data/resources.test.ts",
  "test/hosting/docker-sandbox.test.ts",
];

/**
 * Python, Go, Ruby and PHP apps, built on the toolchains of the base image the container runtimes make (and on the
 * host's, locally, in the default suite). On swarm the builds are the docker driver's: python.test.ts runs there only
 * what tells a service apart from a container (serving a virtualenv's app, the sandbox seen from inside).
 */
export const LANGUAGE_SUITE = ["test/hosting/python.test.ts", "test/hosting/languages.test.ts"];
