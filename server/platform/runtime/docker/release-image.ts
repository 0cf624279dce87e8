// One image per release, `slipway/<slug>:<deployment>`: the base image plus the release folder at /app, owned by
// the app user (the container's root filesystem is read-only anyway). The tar of the release is made here; its
// links are kept as they are (a virtualenv's python → /usr/bin/python3.11 means the image's own file, as in the
// local sandbox) and never followed. A Dockerfile or .dockerignore of the user's is just a file of the app.
import { type Docker, LABEL, isNotFound, splitTag } from "./client.ts";
import { APP_USER } from "./base-image.ts";
import { addTree, createPack } from "./tar.ts";

export interface ReleaseRef {
  slug: string;
  deploymentId: string;
}

export interface ReleaseImageOptions {
  base: string;
  release: ReleaseRef;
  dir: string;
  labels: Record<string, string>;
}

export function releaseTag(release: ReleaseRef): string {
  const slug = release.slug.toLowerCase().replace(/[^a-z0-9._-]/g, "-");
  const tag = release.deploymentId.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 128);
  return `slipway/${slug}:${tag}`;
}

/** The release's image, built unless it is on the engine already (a restart, a rollback). */
export async function ensureReleaseImage(docker: Docker, options: ReleaseImageOptions): Promise<string> {
  const tag = releaseTag(options.release);
  try {
    await docker.getImage(tag).inspect();
    return tag;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  // A container of the base image (never started), the release unpacked into it, committed: three API calls,
  // several times faster than a Dockerfile build, whose every step commits a layer of its own.
  const container = await docker.createContainer({
    Image: options.base,
    Cmd: ["node"],
    User: `${APP_USER.uid}:${APP_USER.gid}`,
    WorkingDir: "/app",
    Labels: { ...options.labels, [LABEL.kind]: "release" },
    NetworkDisabled: true,
  });
  try {
    const pack = createPack();
    const filling = addTree(pack, "app", options.dir, { owner: APP_USER, anyLinks: true }).then(
      () => pack.finalize(),
      (error: Error) => pack.destroy(error),
    );
    await Promise.all([container.putArchive(pack as unknown as NodeJS.ReadableStream, { path: "/" }), filling]);
    const [repo, version] = splitTag(tag);
    await container.commit({ repo, tag: version, pause: false });
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
  return tag;
}

/** Removes a release's image; one that is gone already, or still used by a container, is left as it is. */
export async function removeReleaseImage(docker: Docker, release: ReleaseRef): Promise<void> {
  await docker
    .getImage(releaseTag(release))
    .remove()
    .catch(() => {});
}

/** Every image of an app (on app removal). */
export async function removeAppImages(docker: Docker, labels: Record<string, string>): Promise<void> {
  const filters = { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) };
  const images = await docker.listImages({ filters: JSON.stringify(filters) });
  for (const image of images) {
    await docker
      .getImage(image.Id)
      .remove({ force: true })
      .catch(() => {});
  }
}
