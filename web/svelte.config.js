// SvelteKit as a single-page app: the server (server/http/web.ts) serves build/ and answers every other
// GET with build/index.html, so the client router takes over.
// `version`: SvelteKit names each build by its time (build/_app/version.json, served no-cache; not set here, since
// the build loads this file more than once and each load would name it anew); an open dashboard asks for it every
// minute and, once it has changed, its next navigation loads the new build (src/routes/+layout.svelte) rather
// than asking for chunks the upgrade removed.
import adapter from "@sveltejs/adapter-static";
import { vitePreprocess } from "@sveltejs/vite-plugin-svelte";

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  kit: {
    adapter: adapter({ pages: "build", assets: "build", fallback: "index.html", strict: true }),
    version: { pollInterval: 60_000 },
  },
};
