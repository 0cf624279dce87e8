// A child process of the bench serving Slipway set up as startMeServers does, with BENCH_CHILD_ENV's settings.
import { failInChild, serveFromChild } from "../lib/child-server.ts";
import { startMeServers } from "./me.ts";

try {
  const servers = await startMeServers(undefined, JSON.parse(process.env.BENCH_CHILD_ENV ?? "{}") as Record<string, string>);
  const { close, ...value } = servers;
  serveFromChild(value, close);
} catch (error) {
  failInChild(error);
}
