// POST /oauth/token, refresh_token grant with rotation: Slipway against panva's oidc-provider configured
// for the same grant, in the same run. Every request spends a refresh token and gets its successor, so
// each connection follows its own rotation chain (lib/refresh-chain).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { OIDC_CLIENT, startOidcProvider } from "../lib/oidc-provider.ts";
import { sqliteAdapter } from "../lib/oidc-sqlite-adapter.ts";
import { BENCH_DIR } from "../lib/paths.ts";
import { signUp, startSlipway } from "../lib/slipway.ts";
import { issueRefreshToken, registerClient } from "../lib/slipway-oauth.ts";
import type { LoadOptions, PreparedSuite, Row, Suite, Target } from "../lib/types.ts";
import { COLUMNS_EXPLAINED } from "./me.ts";

const CHAIN = path.join(BENCH_DIR, "lib/refresh-chain");
const TARGET_RATIO = 1.5;

/** A refresh-grant load against `tokenUrl`, seeded with one fresh refresh token per connection. */
function refreshLoad(tokenUrl: string, client: { id: string; secret: string }, mint: () => Promise<string>) {
  return async (load: LoadOptions): Promise<Target> => {
    const seed: string[] = [];
    for (let i = 0; i < load.connections; i += 1) seed.push(await mint());
    const credentials = new URLSearchParams({ grant_type: "refresh_token", client_id: client.id, client_secret: client.secret });
    return {
      url: tokenUrl,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      requests: [{ setupRequest: path.join(CHAIN, "setup-request.cjs"), onResponse: path.join(CHAIN, "on-response.cjs") }],
      initialContext: { seed, formPrefix: `${credentials}&refresh_token=` },
    };
  };
}

export const tokenSuite: Suite = {
  name: "token",
  title: "OAuth token endpoint: refresh grant with rotation, Slipway vs oidc-provider",
  targets: [{ scenario: "slipway", min: TARGET_RATIO }],

  async setup(): Promise<PreparedSuite> {
    const oidcDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-oidc-"));
    const closers: (() => Promise<void>)[] = [async () => fs.rmSync(oidcDir, { recursive: true, force: true })];
    const close = async () => {
      for (const closeOne of closers.reverse()) await closeOne();
    };
    try {
      const slipway = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: "100000000" });
      closers.push(slipway.close);
      const cookie = await signUp(slipway.url, `bench-token-${process.pid}`);
      const client = await registerClient(slipway.url, cookie);
      const durable = await startOidcProvider(sqliteAdapter(path.join(oidcDir, "oidc.db")));
      closers.push(durable.close);
      const inMemory = await startOidcProvider();
      closers.push(inMemory.close);

      const slipwayClient = { id: client.clientId, secret: client.clientSecret };
      return {
        baseline: {
          name: "baseline",
          label: "oidc-provider 9, SQLite adapter (WAL)",
          target: refreshLoad(durable.tokenUrl, OIDC_CLIENT, durable.mintRefreshToken),
        },
        scenarios: [
          {
            name: "slipway",
            label: "Slipway `POST /oauth/token` (SQLite, WAL)",
            target: refreshLoad(`${slipway.url}/oauth/token`, slipwayClient, () => issueRefreshToken(slipway.url, cookie, client)),
          },
          {
            name: "oidc-memory",
            label: "oidc-provider 9, in-memory adapter (keeps nothing)",
            target: refreshLoad(inMemory.tokenUrl, OIDC_CLIENT, inMemory.mintRefreshToken),
          },
        ],
        setupNotes: [
          "Every request is `grant_type=refresh_token` with `client_id` and `client_secret` in the form body; each answer's rotated `refresh_token` is spent by the next request of that connection (a token is never presented twice, so no request is refused and every answer is checked to be 2xx).",
          "Slipway: the real server (fresh SQLite database, `LOG_LEVEL=silent`, rate limiter on with `DEFAULT_REQUESTS_PER_MINUTE=100000000`); its refresh tokens come from a registered confidential client through the consent page and the authorization-code exchange, one new grant per connection and run.",
          "oidc-provider 9.13.3 standalone (its own Koa app on a Node HTTP server), one confidential client (`client_secret_post`), `rotateRefreshToken: true`, opaque access tokens for one resource server (resource indicators), no `openid` scope so no signed ID token: the same work as Slipway's answer. Grants and first refresh tokens are minted with its own `Grant` and `RefreshToken` models.",
          "The baseline stores in SQLite through a small adapter (bench/lib/oidc-sqlite-adapter.ts: better-sqlite3, WAL) so the comparison is disk against disk; its default in-memory adapter, which keeps nothing across restarts, is shown for reference.",
        ],
        close,
      };
    } catch (error) {
      await close();
      throw error;
    }
  },

  explain(rows: Row[]) {
    const slipway = rows.find((r) => r.scenario.name === "slipway");
    const memory = rows.find((r) => r.scenario.name === "oidc-memory");
    // The in-memory store does no I/O at all: the target is judged against it too, so that how the baseline
    // stores tokens cannot decide the verdict.
    const vsMemory = slipway && memory ? slipway.requestsPerSecond / memory.requestsPerSecond : undefined;
    const met = slipway && slipway.ratio >= TARGET_RATIO && (vsMemory === undefined || vsMemory >= TARGET_RATIO);
    const verdict = slipway
      ? `Slipway reached **${slipway.ratio.toFixed(2)}×** oidc-provider's throughput on the same storage engine` +
        (vsMemory === undefined ? "" : ` and **${vsMemory.toFixed(2)}×** oidc-provider keeping everything in memory (no I/O at all)`) +
        `: the target (≥ ${TARGET_RATIO}× against both) is ${met ? "**met**" : "**missed**"}.`
      : "Slipway was not measured in this run.";
    return [
      COLUMNS_EXPLAINED.replace("the plain Fastify route", "the baseline"),
      "Each Slipway request authenticates the client (SHA-256 of the secret, constant-time compare, the client row from the read cache),",
      "looks the refresh token up by its hash, then retires it and stores the new access/refresh pair in one transaction (a conditional",
      "update first, so a raced or replayed token stores nothing and revokes its family), Slipway's statements being prepared SQL",
      "(server/db/sql.ts). Both durable servers run SQLite with its default `synchronous=FULL`, so each commit waits for the disk:",
      "oidc-provider commits three times per refresh (consume, refresh token, access token); Slipway commits once per turn of the",
      "event loop for all the refreshes that arrived in it (group commit: each in its own savepoint, each answered only after the",
      "commit), so under load several requests share one disk wait.",
      verdict,
    ].join(" ");
  },
};
