// `GET /api/apps` for a user with 20 apps, against a plain Fastify route answering the identical JSON body.
import { isDeepStrictEqual } from "node:util";
import { startPlainFastify } from "../lib/baseline.ts";
import { fetchJson, signUp, startSlipway } from "../lib/slipway.ts";
import type { PreparedSuite, Row, Suite } from "../lib/types.ts";
import { COLUMNS_EXPLAINED } from "./me.ts";

const APPS = 20;

export const appsSuite: Suite = {
  name: "apps",
  title: "Authenticated GET /api/apps (20 apps) vs a plain Fastify route",
  targets: [{ scenario: "rest", min: 0.4 }],

  async setup(): Promise<PreparedSuite> {
    const server = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: "100000000", DEFAULT_MAX_APPS: String(APPS) });
    try {
      const cookie = await signUp(server.url, `bench-apps-${process.pid}`);
      for (let i = 0; i < APPS; i += 1) {
        const res = await fetch(`${server.url}/api/apps`, {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: JSON.stringify({ slug: `bench-app-${i}`, name: `Bench app ${i}`, description: "An app never deployed", repo: "octo/bench", branch: "main" }),
        });
        if (res.status !== 201) throw new Error(`POST /api/apps answered ${res.status}: ${await res.text()}`);
      }
      const apps = (await fetchJson(`${server.url}/api/apps`, { headers: { cookie } })) as unknown[];
      if (apps.length !== APPS) throw new Error(`GET /api/apps listed ${apps.length} apps, expected ${APPS}`);
      const plain = await startPlainFastify("/apps", apps);
      if (!isDeepStrictEqual(await fetchJson(plain.url), apps)) throw new Error("the plain route does not answer the /api/apps body");
      return {
        baseline: { name: "baseline", label: "plain Fastify `GET /apps` (same JSON, no DB, no auth)", target: { url: plain.url } },
        scenarios: [{ name: "rest", label: `REST \`GET /api/apps\` (${APPS} apps, session cookie)`, target: { url: `${server.url}/api/apps`, headers: { cookie } } }],
        setupNotes: [
          "Real server in the bench process: fresh SQLite database in a temp `DATA_DIR`, `LOG_LEVEL=silent`, the rate limiter on and counting.",
          `One account with ${APPS} apps created through \`POST /api/apps\` (never deployed); every request carries its session cookie.`,
          `Before measuring, the plain route's body was checked to equal the \`GET /api/apps\` body (${JSON.stringify(apps).length} bytes of JSON).`,
        ],
        async close() {
          await plain.close();
          await server.close();
        },
      };
    } catch (error) {
      await server.close();
      throw error;
    }
  },

  explain(rows: Row[]) {
    const rest = rows.find((r) => r.scenario.name === "rest");
    const verdict = rest ? `REST reached **${rest.ratio.toFixed(2)}×** the plain route: the target (≥ 0.4×) is ${rest.ratio >= 0.4 ? "**met**" : "**missed**"}.` : "";
    return `${COLUMNS_EXPLAINED} Each request authenticates, counts against the rate limit, reads the user's apps from the database and runs the route's compiled document. ${verdict}`;
  },
};
