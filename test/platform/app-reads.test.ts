// The app list's prepared SQL (db/app-reads.ts) answers exactly what Prisma's findMany answers, on SQLite and
// (TEST_DATABASE=postgres) PostgreSQL: every column, its type, the order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql } from "../../server/db/sql.ts";
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
    await db.app.update({ where: { id: second.id }, data: { previews: true, githubToken: "sealed", instances: 3, status: "STOPPED", healthcheck: { path: "/up", intervalSeconds: 5, timeoutSeconds: 2 } } });
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

  describe("the first page kept between reads", () => {
    it("answers the same rows while nothing changed, and every change at once, whoever made it", async () => {
      const client = new Client(server.url);
      const { user } = await client.signup();
      const { apps } = server.slipway.platform.services;
      const db = server.slipway.platform.db;
      const slugs = [0, 1, 2].map((i) => `kept-${i}-${user.id.slice(-6)}`);
      for (const slug of slugs) expect((await client.post("/api/apps", { slug })).status).toBe(201);
      const fresh = () => db.app.findMany({ where: { ownerId: user.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 50 });

      const first = await apps.list(user.id, { first: 50 });
      expect(first).toEqual(await fresh());
      // Kept: the very same rows, frozen so that no caller can change what the next one reads.
      expect(await apps.list(user.id, { first: 50 })).toBe(first);
      expect(Object.isFrozen(first[0])).toBe(true);

      // Through Prisma (the service's own writes).
      await db.app.update({ where: { slug: slugs[1] }, data: { status: "STOPPED" } });
      const afterPrisma = await apps.list(user.id, { first: 50 });
      expect(afterPrisma).not.toBe(first);
      expect(afterPrisma).toEqual(await fresh());
      expect(afterPrisma.find((app) => app.slug === slugs[1])?.status).toBe("STOPPED");

      // Through another connection, as another instance or an operator's SQL would: the database's triggers count it.
      const other = createSql(server.slipway.platform.config.databaseUrl);
      try {
        await other.chain([{ query: `UPDATE "App" SET "status" = ? WHERE "slug" = ?`, params: ["CRASHED", slugs[2]] }]);
        expect((await apps.list(user.id, { first: 50 })).find((app) => app.slug === slugs[2])?.status).toBe("CRASHED");
        await other.chain([{ query: `DELETE FROM "App" WHERE "slug" = ?`, params: [slugs[0]] }]);
        expect((await apps.list(user.id, { first: 50 })).map((app) => app.slug)).toEqual([slugs[2], slugs[1]]);
      } finally {
        await other.close();
      }

      // A new app, a smaller page, and REST reading the same list.
      expect((await client.post("/api/apps", { slug: `kept-3-${user.id.slice(-6)}` })).status).toBe(201);
      expect(await apps.list(user.id, { first: 50 })).toEqual(await fresh());
      expect(await apps.list(user.id, { first: 1 })).toEqual((await fresh()).slice(0, 1));
      expect((await client.get("/api/apps")).body.map((app: { slug: string; status: string }) => [app.slug, app.status])).toEqual(
        (await fresh()).map((app) => [app.slug, app.status]),
      );
    });

    it("never mixes owners: one owner's change leaves another's copy, and each sees only its own apps", async () => {
      const [a, b] = [new Client(server.url), new Client(server.url)];
      const [{ user: ua }, { user: ub }] = [await a.signup(), await b.signup()];
      expect((await a.post("/api/apps", { slug: `mine-a-${ua.id.slice(-6)}` })).status).toBe(201);
      expect((await b.post("/api/apps", { slug: `mine-b-${ub.id.slice(-6)}` })).status).toBe(201);
      const { apps } = server.slipway.platform.services;
      const keptB = await apps.list(ub.id, { first: 50 });
      await server.slipway.platform.db.app.updateMany({ where: { ownerId: ua.id }, data: { status: "STOPPED" } });
      expect(await apps.list(ub.id, { first: 50 })).toBe(keptB);
      expect((await apps.list(ua.id, { first: 50 })).map((app) => [app.slug, app.status])).toEqual([[`mine-a-${ua.id.slice(-6)}`, "STOPPED"]]);
    });
  });
});
