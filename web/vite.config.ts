import { sveltekit } from "@sveltejs/kit/vite";
import { defineConfig } from "vite";
import { graphqlDocuments } from "./build-tools/graphql-documents";

// `vite dev` in web/ proxies the API to a Slipway server on :3000 (npm run dev). The proxy keeps the
// Host header, so the server's same-origin (CSRF) check accepts the dashboard's writes.
const api = { target: "http://127.0.0.1:3000", ws: true };

export default defineConfig({
  plugins: [sveltekit(), graphqlDocuments({ gqlDir: "src/lib/gql" })],
  // SvelteKit's build-time server code needs cookie 0.6 (its own copy); bundle it so that Node does not
  // pick the project's cookie 2 (from @fastify/cookie), which lacks the old exports.
  ssr: { noExternal: ["cookie"] },
  // SvelteKit's prerender pass dominates the build time; rolldown's timing advice about it is noise.
  build: { rolldownOptions: { checks: { bundlerTimings: false } } },
  server: { proxy: { "/graphql": api, "/api": api, "/oauth": api } },
});
