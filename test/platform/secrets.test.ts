// Random tokens come from a pooled CSPRNG buffer (server/auth/secrets.ts): each byte is handed out once.
import { describe, expect, it } from "vitest";
import { randomToken } from "../../server/auth/secrets.ts";

describe("randomToken", () => {
  it("gives 256-bit base64url tokens by default, and the size asked for", () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(randomToken(12), "base64url")).toHaveLength(12);
    expect(Buffer.from(randomToken(4096), "base64url")).toHaveLength(4096);
  });

  it("never repeats a token across many refills of the pool, whatever the sizes asked for", () => {
    const seen = new Set<string>();
    const sizes = [32, 7, 32, 1000, 16];
    for (let i = 0; i < 5000; i += 1) seen.add(randomToken(sizes[i % sizes.length]));
    expect(seen.size).toBe(5000);
  });

  it("refuses sizes beyond the pool rather than reuse bytes", () => {
    expect(() => randomToken(4097)).toThrow(RangeError);
  });
});
