// Paths inside every runtime's sandbox that builders and drivers agree on.

/** The app's build cache (ProcessSpec.cacheDir), read-write, kept between builds. */
export const BUILD_CACHE_PATH = "/cache";
