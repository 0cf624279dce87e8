// The app list's prepared SQL (db/app-reads.ts) answers exactly what Prisma's findMany answers, on SQLite and
// (TEST_DATABASE=postgres) PostgreSQL: every column, its type, the order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_APPS: "10" });
});
afterAll(() => server?.close());

describe("the app list through prepared SQL", () => {
  it("answers the rows, types and order Prisma answers, and pages on through Prisma", async () => {
    const client = new Client(server.url);
    const { user } = await client.signup();
    for (const [i, autoDeploy] of [false, true, false, true, false].entries()) {
      const res = await client.post("/api/apps", { slug: `reads-${i}-${user.id.slice(-6)}`, name: `Reads ${i}`, repo: i % 2 ? "octo/app" : undefined, autoDeploy });
      expect(res.status).toBe(201);
    }
    const db = server.slipway.platform.db;
    const [second, fourth] = await db.app.findMany({ where: { ownerId: user.id }, orderBy: { slug: "asc" }, skip: 1, take: 3 }).then((apps) => [apps[0], apps[2]]);
    await db.app.update({ where: { id: second.id }, data: { previews: true, githubToken: "sealed", instances: 3, status: "STOPPED" } });
    // Two apps created in the same millisecond are ordered by id, in SQL as in Prisma.
    await db.app.update({ where: { id: fourth.id }, data: { createdAt: second.createdAt } });

    const prisma = await db.app.findMany({ where: { ownerId: user.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 50 });
    const viaSql = await server.slipway.platform.services.apps.list(user.id, { first: 50 });
    expect(viaSql).toEqual(prisma);
    expect(viaSql.map((app) => [typeof app.autoDeploy, app.createdAt instanceof Date, app.createdAt.getTime()])).toEqual(
      prisma.map((app) => ["boolean", true, app.createdAt.getTime()]),
    );
    expect(await server.slipway.platform.services.apps.list(user.id, { first: 2 })).toEqual(prisma.slice(0, 2));
    expect(await server.slipway.platform.services.apps.list(user.id, { first: 2, after: prisma[1].slug })).toEqual(prisma.slice(2, 4));

    const rest = await client.get("/api/apps");
    expect(rest.status).toBe(200);
    expect(rest.body.map((app: { slug: string }) => app.slug)).toEqual(prisma.map((app) => app.slug));
    expect(rest.body.find((app: { slug: string }) => app.slug === second.slug)).toMatchObject({ previews: true, hasGitHubToken: true, instances: 3, status: "STOPPED" });
  });

  it("lists no one else's apps", async () => {
    const other = new Client(server.url);
    const { user } = await other.signup();
    expect(await server.slipway.platform.services.apps.list(user.id, { first: 50 })).toEqual([]);
    expect((await other.get("/api/apps")).body).toEqual([]);
  });
});
