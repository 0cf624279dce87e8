// The base image's toolchains come from dpkg's own records on this host: the packages asked for, what they depend on,
// the add-ons a pattern asks for, never essential or init packages, and only files under /usr (docs left out).
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import { hostPackages } from "../../server/platform/runtime/docker/host-packages.ts";

const hasDpkg = fs.existsSync("/var/lib/dpkg/status") && fs.existsSync("/usr/bin/python3") && fs.existsSync("/usr/sbin/php-fpm8.2");

describe.runIf(hasDpkg)("host packages for the base image", () => {
  it("follows dependencies, takes add-ons by pattern, leaves out essential and init packages and docs", async () => {
    const { versions, files, links } = await hostPackages(["python3", "php-fpm", /^php\d+\.\d+-mbstring$/, "slipway-no-such-package"]);
    const names = versions.map((v) => v.split("=")[0]);
    expect(names).toEqual(expect.arrayContaining(["python3", "python3.11-minimal", "libpython3.11-stdlib", "php8.2-fpm", "php8.2-common", "php8.2-mbstring"]));
    for (const left of ["systemd", "dpkg", "coreutils", "bash", "debconf", "slipway-no-such-package"]) expect(names).not.toContain(left);
    expect(files).toContain("/usr/bin/python3.11");
    expect(files).toContain("/usr/sbin/php-fpm8.2");
    expect(files.some((f) => f.includes("mbstring.so"))).toBe(true);
    expect([...files, ...links.keys()].filter((f) => !/^\/(usr|lib|lib64|bin|sbin)\//.test(f) || f.startsWith("/usr/share/doc/"))).toEqual([]);
    // Links keep their own targets: python3 → python3.11, as dpkg installed it.
    expect(links.get("/usr/bin/python3")).toBe("python3.11");
  });

  it.runIf(fs.existsSync("/usr/bin/go"))("keeps Go's compiler and standard library, not its own tests", async () => {
    const { files } = await hostPackages(["golang-go"]);
    expect(files.some((f) => /\/usr\/lib\/go-[\d.]+\/bin\/go$/.test(f))).toBe(true);
    expect(files.some((f) => /\/usr\/share\/go-[\d.]+\/src\/net\/http\/server\.go$/.test(f))).toBe(true);
    expect(files.filter((f) => f.endsWith("_test.go") || f.includes("/testdata/"))).toEqual([]);
  });

  it("asks nothing of dpkg for no toolchain", async () => {
    expect(await hostPackages([])).toEqual({ versions: [], files: [], links: new Map() });
  });
});
