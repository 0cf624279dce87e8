// CDN quotas: cdnBytes is never overshot, also by concurrent uploads of one user (each reserves before its bytes
// pass, and the one that does not fit gets 413 quota_exceeded and leaves nothing behind); maxUploadBytes
// (413 payload_too_large) whether or not the size was announced; a delete frees its bytes at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { MiB, storedObjects, uploadChunked, uploadFile } from "./helpers.ts";

const LIMIT = 10 * MiB;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ DEFAULT_CDN_BYTES: String(LIMIT), DEFAULT_MAX_UPLOAD_BYTES: String(4 * MiB), DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(() => server?.close());

async function newUser() {
  const client = new Client(server.url);
  const { user } = await client.signup();
  return { client, userId: user.id };
}

const usage = async (client: Client) => (await client.get("/api/me")).body.quota.usage.cdnBytes as number;
const held = async (userId: string) => Number((await server.slipway.platform.db.cdnHold.findUnique({ where: { userId } }))?.bytes ?? 0n);
const rows = (userId: string) => server.slipway.platform.db.file.count({ where: { ownerId: userId } });

describe("cdnBytes", () => {
  it("lets exactly the uploads that fit through when 5 run at once, never holding more than the limit", async () => {
    const { client, userId } = await newUser();
    const objectsBefore = storedObjects(server).length;
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await held(userId));
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => uploadFile(client, new Uint8Array(3 * MiB).fill(i), `part-${i}.bin`, "application/octet-stream")));
    sampling = false;
    await sampler;

    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 201, 201, 413, 413]);
    for (const refused of answers.filter((a) => a.status === 413)) {
      expect(refused.body.error.code).toBe("quota_exceeded");
      expect(refused.body.error.message).toMatch(/cdnBytes/);
    }
    expect(peak).toBeLessThanOrEqual(LIMIT);
    expect(await usage(client)).toBe(9 * MiB);
    expect(await held(userId)).toBe(9 * MiB);
    expect(await rows(userId)).toBe(3);
    expect(storedObjects(server).length).toBe(objectsBefore + 3);
    expect(storedObjects(server).filter((f) => f.includes(".partial-"))).toEqual([]);
  });

  it("refuses at once an upload whose announced size cannot fit, and one that does not say its size when its bytes overflow", async () => {
    const { client, userId } = await newUser();
    for (let i = 0; i < 3; i++) expect((await uploadFile(client, new Uint8Array(3 * MiB), `f${i}`)).status).toBe(201);
    const objectsBefore = storedObjects(server).length;
    const announced = await uploadFile(client, new Uint8Array(2 * MiB), "too-much.bin");
    expect(announced.status).toBe(413);
    expect(announced.body.error.code).toBe("quota_exceeded");
    const chunked = await uploadChunked(client, 2 * MiB);
    expect(chunked.status).toBe(413);
    expect(chunked.body.error.code).toBe("quota_exceeded");
    // What still fits does: the last MiB, announced or not.
    const fits = await uploadChunked(client, MiB - 1024);
    expect(fits.status).toBe(201);
    expect(fits.body.size).toBe(MiB - 1024);
    expect(await held(userId)).toBe(9 * MiB + MiB - 1024);
    expect(storedObjects(server).length).toBe(objectsBefore + 1);
    expect(await rows(userId)).toBe(4);
  });

  it("frees a deleted file's bytes at once", async () => {
    const { client, userId } = await newUser();
    const files = [];
    for (let i = 0; i < 3; i++) files.push((await uploadFile(client, new Uint8Array(3 * MiB), `f${i}`)).body);
    expect((await uploadFile(client, new Uint8Array(3 * MiB), "fourth")).status).toBe(413);
    const objectsBefore = storedObjects(server).length;
    expect((await client.request("DELETE", `/api/cdn/${files[0].id}`)).status).toBe(204);
    expect(storedObjects(server).length).toBe(objectsBefore - 1);
    expect(await usage(client)).toBe(6 * MiB);
    expect(await held(userId)).toBe(6 * MiB);
    expect((await fetch(files[0].url, { redirect: "manual" })).status).toBe(404);
    expect((await uploadFile(client, new Uint8Array(3 * MiB), "fourth")).status).toBe(201);
    expect(await usage(client)).toBe(9 * MiB);
  });
});

describe("maxUploadBytes", () => {
  it("refuses a file above it with 413 payload_too_large, announced or not, keeping nothing", async () => {
    const { client, userId } = await newUser();
    const objectsBefore = storedObjects(server).length;
    const announced = await uploadFile(client, new Uint8Array(5 * MiB), "big.bin");
    expect(announced.status).toBe(413);
    expect(announced.body.error.code).toBe("payload_too_large");
    expect(announced.body.error.message).toMatch(/maxUploadBytes/);
    const chunked = await uploadChunked(client, 4 * MiB + 1);
    expect(chunked.status).toBe(413);
    expect(chunked.body.error.code).toBe("payload_too_large");
    const exact = await uploadChunked(client, 4 * MiB);
    expect(exact.status).toBe(201);
    expect(storedObjects(server).length).toBe(objectsBefore + 1);
    expect(await held(userId)).toBe(4 * MiB);
    expect(await rows(userId)).toBe(1);
  });
});

describe("deleteAllOf (for account deletion)", () => {
  it("removes every stored object, row and hold of one user, and nothing of another's", async () => {
    const { client, userId } = await newUser();
    const { client: otherClient, userId: otherId } = await newUser();
    const files = [(await uploadFile(client, "one", "1.txt")).body, (await uploadFile(client, "two", "2.txt")).body];
    expect((await uploadFile(otherClient, "kept", "kept.txt")).status).toBe(201);
    const before = storedObjects(server).length;
    await server.slipway.platform.services.cdn.deleteAllOf(userId);
    expect(storedObjects(server).length).toBe(before - 2);
    expect(await rows(userId)).toBe(0);
    expect(await server.slipway.platform.db.cdnHold.count({ where: { userId } })).toBe(0);
    for (const file of files) expect((await fetch(file.url, { redirect: "manual" })).status).toBe(404);
    expect(await rows(otherId)).toBe(1);
    expect(await held(otherId)).toBe(4);
  });
});

describe("reservations left by a crash", () => {
  it("are freed by reconcileHolds (run at the boot of a lone instance)", async () => {
    const { client, userId } = await newUser();
    expect((await uploadFile(client, new Uint8Array(3 * MiB), "kept.bin")).status).toBe(201);
    // An upload cut off by a crash: its reservation was never given back.
    await server.slipway.platform.db.cdnHold.update({ where: { userId }, data: { bytes: { increment: 7 * MiB } } });
    expect((await uploadFile(client, new Uint8Array(MiB), "blocked.bin")).status).toBe(413);
    await server.slipway.platform.services.cdn.reconcileHolds();
    expect(await held(userId)).toBe(3 * MiB);
    expect((await uploadFile(client, new Uint8Array(MiB), "fits.bin")).status).toBe(201);
  });
});
