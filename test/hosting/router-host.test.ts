// Which Host headers are an app's: exactly one label in front of APPS_DOMAIN, never the platform's hostname.
import { describe, expect, it } from "vitest";
import { hostMatcher } from "../../server/hosting/router/host.ts";

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
