// Creating an app with a slug that breaks the rule: the answer says what is wrong and the slug to use instead,
// the same over REST (400) and GraphQL (InvalidRequestError), and no app is made.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startServer();
  client = new Client(server.url);
  await client.signup();
});
afterAll(() => server?.close());

const CREATE = `mutation ($input: CreateAppInput!) {
  createApp(input: $input) { __typename ... on InvalidRequestError { message fields { field message } } }
}`;

describe("a slug that breaks the rule", () => {
  it("is refused for a visitor before it is looked at", async () => {
    expect((await new Client(server.url).post("/api/apps", { slug: "Hello Node" })).status).toBe(401);
  });

  it("answers a REST 400 naming what is wrong and suggesting a valid slug", async () => {
    const res = await client.post("/api/apps", { slug: "Hello Node" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.slug).toBe('"Hello Node" has capital letters and spaces. Try "hello-node".');
    expect(res.body.error.message).toContain('Try "hello-node"');
    expect((await client.get("/api/apps/hello-node")).status).toBe(404);
  });

  it("answers the same over GraphQL", async () => {
    const res = await client.graphql(CREATE, { input: { slug: "My_Shop.v2" } });
    expect(res.body.data.createApp).toMatchObject({
      __typename: "InvalidRequestError",
      fields: [{ field: "slug", message: '"My_Shop.v2" has capital letters and "_" ".". Try "my-shop-v2".' }],
    });
  });

  it("says what is wrong without a suggestion when none can be made, or when it would be reserved", async () => {
    const short = await client.post("/api/apps", { slug: "ab" });
    expect(short.body.error.details.fields.slug).toBe('"ab" is shorter than 3 characters.');
    const reserved = await client.post("/api/apps", { slug: "Admin" });
    expect(reserved.body.error.details.fields.slug).toBe('"Admin" has capital letters.');
    const empty = await client.post("/api/apps", { slug: "" });
    expect(empty.body.error.details.fields.slug).toBe("Use 3 to 40 lowercase letters, digits or hyphens, starting with a letter and ending with a letter or digit.");
  });

  it("takes the suggested slug", async () => {
    expect((await client.post("/api/apps", { slug: "hello-node" })).status).toBe(201);
  });
});
