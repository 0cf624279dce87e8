// The outbound guard (webhooks, log drains): private destinations refused unless listed, checked again at each
// connection, and the connection pinned to the address checked.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidRequestError } from "../../server/errors.ts";
import { OutboundGuard, parseAllowList, type Resolver } from "../../server/platform/outbound.ts";

const PUBLIC = "93.184.215.14";

/** A resolver answering from a table, each answer list used in turn (the last one repeats). */
function dnsTable(table: Record<string, string[][]>): Resolver {
  const calls = new Map<string, number>();
  return async (host) => {
    const answers = table[host];
    if (!answers) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    const n = calls.get(host) ?? 0;
    calls.set(host, n + 1);
    return answers[Math.min(n, answers.length - 1)].map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

async function refusal(guard: OutboundGuard, url: string): Promise<string> {
  const error = await guard.checkUrl(url, "url", ["http:", "https:"]).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidRequestError);
  return (error as InvalidRequestError).message;
}

describe("outbound guard", () => {
  const guard = new OutboundGuard(undefined, dnsTable({ "hooks.example.com": [[PUBLIC]], "inside.example.com": [["10.1.2.3"]], "mixed.example.com": [[PUBLIC, "192.168.1.9"]] }));

  it.each([
    ["http://127.0.0.1:8080/hook", "loopback"],
    ["http://[::1]/hook", "loopback"],
    ["http://[::ffff:127.0.0.1]/hook", "loopback"],
    ["http://169.254.169.254/latest/meta-data", "link-local"],
    ["http://10.0.0.5/", "private"],
    ["http://172.20.1.1/", "private"],
    ["http://[fd00::1]/", "private"],
    ["http://0.0.0.0/", "this network"],
    ["http://[::7f00:1]/", "IPv4-compatible"],
    ["http://[2002:7f00:1::]/", "6to4"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://inside.example.com/", "inside.example.com resolves to 10.1.2.3, a private address"],
    ["http://mixed.example.com/", "resolves to 192.168.1.9"],
  ])("refuses %s (%s)", async (url, reason) => {
    const message = await refusal(guard, url);
    expect(message).toContain(reason);
    expect(message).toMatch(/^url: .*OUTBOUND_ALLOWED_HOSTS/);
  });

  it("lets a public host through and refuses what is not a plain http(s) URL", async () => {
    await expect(guard.checkUrl("https://hooks.example.com/x", "url", ["http:", "https:"])).resolves.toBeInstanceOf(URL);
    expect(await refusal(guard, "ftp://hooks.example.com/")).toBe("url: ftp:// is not supported. Expected http://… or https://….");
    expect(await refusal(guard, "https://user:pw@hooks.example.com/")).toMatch(/credentials/);
    expect(await refusal(guard, "not a url")).toMatch(/not a URL/);
    expect(await refusal(guard, "https://nowhere.example.com/")).toMatch(/does not resolve/);
  });

  it("lets through what the operator lists: a host name, an address, a range", async () => {
    const allowing = (value: string) => new OutboundGuard(parseAllowList(value) as never, dnsTable({ "inside.example.com": [["10.1.2.3"]] }));
    await expect(allowing("inside.example.com").checkUrl("http://inside.example.com/", "url", ["http:"])).resolves.toBeDefined();
    await expect(allowing("10.1.2.3").checkUrl("http://inside.example.com/", "url", ["http:"])).resolves.toBeDefined();
    await expect(allowing("10.0.0.0/8").checkUrl("http://10.9.9.9/", "url", ["http:"])).resolves.toBeDefined();
    expect(await refusal(allowing("10.0.0.0/16"), "http://10.9.9.9/")).toContain("private");
    expect(parseAllowList("10.0.0.0/33, x")).toEqual({ invalid: "10.0.0.0/33" });
    expect(parseAllowList("a b")).toEqual({ invalid: "a b" });
    expect(parseAllowList(" hooks.internal , 10.0.0.0/8,::1 ")).toEqual({ hosts: ["hooks.internal"], ranges: ["10.0.0.0/8", "::1"] });
  });
});

describe("a connection through the guard", () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end("reached"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function get(guard: OutboundGuard, host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      http.get({ host, port, path: "/", lookup: guard.lookup }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk)).on("end", () => resolve(body));
      }).on("error", reject);
    });
  }

  it("is refused at connection time when the name rebinds to a private address after its check", async () => {
    const guard = new OutboundGuard(undefined, dnsTable({ "rebind.example.com": [[PUBLIC], ["127.0.0.1"]] }));
    await guard.checkUrl(`http://rebind.example.com:${port}/`, "url", ["http:"]);
    await expect(get(guard, "rebind.example.com")).rejects.toThrow(/resolves to 127\.0\.0\.1, a loopback address/);
  });

  it("reaches a listed loopback address, pinned to the address the guard checked", async () => {
    const guard = new OutboundGuard({ hosts: [], ranges: ["127.0.0.1"] }, dnsTable({ "receiver.test": [["127.0.0.1"]] }));
    expect(await get(guard, "receiver.test")).toBe("reached");
  });
});
