// Release images for other nodes: tagged `<registry>/slipway/<slug>:<deployment>` and pushed through the
// Engine API. Nodes pull them when Swarm places a task there. A registry on 127.0.0.1 is allowed without TLS
// by dockerd's defaults; any other plain-HTTP registry must be in every node's `insecure-registries`.
import { type Docker, followProgress, splitTag } from "../docker/client.ts";

export async function pushImage(docker: Docker, tag: string, registry: string, log: (line: string) => void): Promise<string> {
  const [repository, version] = splitTag(tag);
  const remote = `${registry}/${repository}`;
  await docker.getImage(tag).tag({ repo: remote, tag: version });
  log(`Pushing the image to ${registry}.`);
  // The engine wants an X-Registry-Auth header even for a registry without authentication.
  const stream = await docker.getImage(remote).push({ tag: version, authconfig: {} });
  await followProgress(docker, stream as never);
  return `${remote}:${version}`;
}
