// Which Host headers are an app's: exactly one label in front of APPS_DOMAIN, never the platform's hostname.
import { describe, expect, it } from "vitest";
import { hostMatcher, platformHostMatcher } from "../../server/hosting/router/host.ts";

describe("hostMatcher", () => {
  const match = hostMatcher("apps.example.com", "apps.example.com");

  it("finds the slug whatever the port, case or trailing dot", () => {
    for (const host of ["blog.apps.example.com", "Blog.Apps.Example.COM:8080", "blog.apps.example.com.", "blog.apps.example.com.:443"]) {
      expect(match(host), host).toEqual({ app: true, slug: "blog" });
    }
  });

  it("leaves every other host to the platform", () => {
    for (const host of [undefined, "", "apps.example.com", "example.com", "a.blog.apps.example.com", "blogapps.example.com", "blog.apps.example.com.evil", "[::1]:3000", "127.0.0.1:3000"]) {
      expect(match(host), String(host)).toEqual({ app: false });
    }
  });

  it("marks an app-shaped host whose label is no slug (null: 404 without a lookup)", () => {
    for (const host of ["under_score.apps.example.com", "-dash.apps.example.com", "dash-.apps.example.com", "%41.apps.example.com"]) {
      expect(match(host), host).toEqual({ app: true, slug: null });
    }
  });

  it("never takes the platform's own hostname for an app, even under APPS_DOMAIN", () => {
    const shared = hostMatcher("example.com", "slipway.example.com");
    expect(shared("slipway.example.com:443")).toEqual({ app: false });
    expect(shared("blog.example.com")).toEqual({ app: true, slug: "blog" });
  });
});

describe("platformHostMatcher", () => {
  it("knows only PUBLIC_URL's hostname and the loopback names, any port, case or trailing dot", () => {
    const platform = platformHostMatcher("slipway.example.com");
    for (const host of ["slipway.example.com", "Slipway.Example.COM.:443", "localhost", "localhost:3000", "127.0.0.1:3000", "[::1]", "[::1]:3000"]) {
      expect(platform(host), host).toBe(true);
    }
    for (const host of [undefined, "", "example.com", "a.slipway.example.com", "gone.example.test", "10.0.0.1", "[2001:db8::1]", "[::1", "a.localhost"]) {
      expect(platform(host), String(host)).toBe(false);
    }
    expect(platformHostMatcher("[::1]")("[::1]:8080")).toBe(true);
    expect(platformHostMatcher("203.0.113.7")("203.0.113.7:3000")).toBe(true);
  });
});
