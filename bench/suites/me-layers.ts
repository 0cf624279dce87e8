// Where GET /api/me's cost comes from, layer by layer. Bench-only routes on the real app answer the /api/me
// body without GraphQL, outside and inside the guarded /api prefix.
import type { PreparedSuite, Row, Suite } from "../lib/types.ts";
import { COLUMNS_EXPLAINED, startMeServers, startMeServersInChild } from "./me.ts";

export const meLayersSuite: Suite = {
  name: "me-layers",
  pairedBaseline: true,
  title: "GET /api/me cost by layer",
  targets: [],

  async setup(): Promise<PreparedSuite> {
    const servers = await startMeServers((app, body) => {
      app.get("/bench/me", async () => body());
      app.get("/api/bench/me", async () => body());
    });
    const unbatched = await startMeServersInChild({ HTTP_BATCH_TURNS: "false" }).catch(async (error: unknown) => {
      await servers.close();
      throw error;
    });
    const headers = { cookie: servers.cookie };
    return {
      baseline: servers.baseline,
      scenarios: [
        { name: "app", label: "Slipway app, unguarded `GET /bench/me` (plugins and global hooks)", target: { url: `${servers.slipwayUrl}/bench/me`, headers } },
        { name: "guard", label: "+ guard, `GET /api/bench/me` (auth, rate limit, headers)", target: { url: `${servers.slipwayUrl}/api/bench/me`, headers } },
        { ...servers.rest, label: "+ GraphQL `execute`: REST `GET /api/me`" },
        { ...unbatched.rest, name: "rest-unbatched", label: "REST `GET /api/me` with `HTTP_BATCH_TURNS=false` (each request handled as it is read)" },
      ],
      setupNotes: [
        ...servers.setupNotes,
        "`/bench/me` and `/api/bench/me` are bench-only routes added to the app before it listens; they return the same body without GraphQL.",
        "`rest-unbatched` runs on a second Slipway server, in a child process of its own, set up the same way but with `HTTP_BATCH_TURNS=false`: every request is handled as soon as it is read, as before batched turns (server/http/batch-turns.ts).",
      ],
      close: () => Promise.all([servers.close(), unbatched.close()]).then(() => undefined),
    };
  },

  explain(rows: Row[]) {
    const us = (name: string) => rows.find((r) => r.scenario.name === name)?.serverMicrosPerRequest;
    const steps = [
      ["Slipway's app-level plugins and hooks", us("baseline"), us("app")],
      ["the guard", us("app"), us("guard")],
      ["GraphQL execution (the REST adapter)", us("guard"), us("rest")],
    ] as const;
    const parts = steps
      .filter(([, from, to]) => from !== undefined && to !== undefined)
      .map(([what, from, to]) => `${what} ≈ ${Math.round(to! - from!)} µs`);
    const batching = us("rest") !== undefined && us("rest-unbatched") !== undefined ? ` Batched turns save ≈ ${Math.round(us("rest-unbatched")! - us("rest")!)} µs a REST request (\`rest-unbatched\` against \`rest\`).` : "";
    return `${COLUMNS_EXPLAINED} Each row adds one layer to the one above; differences of server µs/req: ${parts.join(", ") || "n/a"}.${batching} For the least that \`execute\` alone costs, see the \`execute-floor\` row of the GET /api/me section.`;
  },
};
