// SvelteKit as a single-page app: the server (server/http/web.ts) serves build/ and answers every other
// GET with build/index.html, so the client router takes over.
import adapter from "@sveltejs/adapter-static";
import { vitePreprocess } from "@sveltejs/vite-plugin-svelte";

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  kit: {
    adapter: adapter({ pages: "build", assets: "build", fallback: "index.html", strict: true }),
  },
};
