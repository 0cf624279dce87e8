// `GET /api/apps` for a user with 20 apps, against a plain Fastify route answering the identical JSON body.
import { isDeepStrictEqual } from "node:util";
import type { AppRow } from "../../server/services/apps.ts";
import { startPlainFastify } from "../lib/baseline.ts";
import { fetchJson, signUp, startSlipway } from "../lib/slipway.ts";
import type { PreparedSuite, Row, Suite } from "../lib/types.ts";
import { COLUMNS_EXPLAINED } from "./me.ts";

const APPS = 20;

/** An app as GET /api/apps answers it (the AppFields fragment), from its row. */
function restApp(row: AppRow, url: (slug: string) => string) {
  return {
    slug: row.slug, name: row.name, description: row.description, status: row.status, url: url(row.slug), repo: row.repo, branch: row.branch,
    autoDeploy: row.autoDeploy, previews: row.previews, instances: row.instances, hasGitHubToken: row.githubToken !== null,
    createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
  };
}

export const appsSuite: Suite = {
  name: "apps",
  pairedBaseline: true,
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
      // Floors: a bare route that reads the same rows per request (no auth, no GraphQL) and shapes them itself.
      const { db, services } = server.slipway.platform;
      const ownerId = (await db.app.findFirstOrThrow({ where: { slug: "bench-app-0" } })).ownerId;
      const url = (slug: string) => services.apps.url(slug);
      const sqlFloor = await startPlainFastify("/apps", async () => (await services.apps.list(ownerId, { first: 50 })).map((row) => restApp(row, url)));
      const prismaFloor = await startPlainFastify("/apps", async () =>
        (await db.app.findMany({ where: { ownerId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 50 })).map((row) => restApp(row, url)),
      );
      for (const floor of [sqlFloor, prismaFloor]) {
        if (!isDeepStrictEqual(await fetchJson(floor.url), apps)) throw new Error(`the floor at ${floor.url} does not answer the /api/apps body`);
      }
      return {
        baseline: { name: "baseline", label: "plain Fastify `GET /apps` (same JSON, no DB, no auth)", target: { url: plain.url } },
        scenarios: [
          { name: "rest", label: `REST \`GET /api/apps\` (${APPS} apps, session cookie)`, target: { url: `${server.url}/api/apps`, headers: { cookie } } },
          { name: "sql-floor", label: "plain Fastify + the app service's read (list version checked, kept page), shaped by hand: no auth, no GraphQL", target: { url: sqlFloor.url } },
          { name: "prisma-floor", label: "plain Fastify + the same read through Prisma `findMany`, shaped by hand: no auth, no GraphQL", target: { url: prismaFloor.url } },
        ],
        setupNotes: [
          "Real server in the bench process: fresh SQLite database in a temp `DATA_DIR`, `LOG_LEVEL=silent`, the rate limiter on and counting.",
          `One account with ${APPS} apps created through \`POST /api/apps\` (never deployed); every request carries its session cookie.`,
          `Before measuring, the plain route's body was checked to equal the \`GET /api/apps\` body (${JSON.stringify(apps).length} bytes of JSON).`,
          "`sql-floor` and `prisma-floor` are bare Fastify apps in the same process whose route gets the user's 20 apps per request and shapes the REST body by hand (dates through `toISOString` each time): `sql-floor` through the app service as `GET /api/apps` does (one indexed read of the owner's list version, then the decoded page kept since the last change, or the rows through prepared SQL), `prisma-floor` through Prisma's `findMany` as before any of it. Both answers were checked to equal the `GET /api/apps` body. Without authentication, rate limiting or GraphQL, they are what the read alone costs.",
        ],
        async close() {
          await Promise.all([sqlFloor.close(), prismaFloor.close()]);
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
    const row = (name: string) => rows.find((r) => r.scenario.name === name);
    const [rest, sqlFloor, prismaFloor, baseline] = ["rest", "sql-floor", "prisma-floor", "baseline"].map(row);
    const verdict = rest ? `REST reached **${rest.ratio.toFixed(2)}×** the plain route: the target (≥ 0.4×) is ${rest.ratio >= 0.4 ? "**met**" : "**missed**"}.` : "";
    const floors =
      sqlFloor && prismaFloor && baseline
        ? ` The app service's read alone, with nothing else, reaches **${sqlFloor.ratio.toFixed(2)}×** ` +
          `(≈ ${Math.round(sqlFloor.serverMicrosPerRequest - baseline.serverMicrosPerRequest)} µs more than the plain route), reading the rows through Prisma **${prismaFloor.ratio.toFixed(2)}×** ` +
          `(≈ ${Math.round(prismaFloor.serverMicrosPerRequest - baseline.serverMicrosPerRequest)} µs).`
        : "";
    return `${COLUMNS_EXPLAINED} Each request authenticates, counts against the rate limit, reads the owner's list version (one indexed read; database triggers bump it on every write to their apps), answers the first page kept since that version if there is one (else reads it through prepared SQL) and runs the route's compiled document. ${verdict}${floors}`;
  },
};
