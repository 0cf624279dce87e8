// The commands the build log shows: what the user wrote, never the shell Slipway runs it through.
import { describe, expect, it } from "vitest";
import { nodeWebArgv } from "../../server/hosting/builders/node.ts";
import { shownCommand } from "../../server/hosting/deploy/shown-command.ts";

describe("shownCommand", () => {
  it("shows a Node start script as written in package.json", () => {
    const argv = nodeWebArgv({ scripts: { start: 'node server.js --name "$APP"' }, hasDependencies: false });
    expect(shownCommand(argv)).toBe('node server.js --name "$APP"');
  });

  it("shows a Procfile line as written", () => {
    expect(shownCommand(["/bin/sh", "-c", "gunicorn app:app --workers 2"])).toBe("gunicorn app:app --workers 2");
  });

  it("shows other commands as they run", () => {
    expect(shownCommand(["npm", "ci", "--no-audit"])).toBe("npm ci --no-audit");
    expect(shownCommand(nodeWebArgv({ scripts: {}, hasDependencies: false }))).toBe("node server.js");
  });

  it("quotes an argument of Slipway's own that a shell would split, so the line can be typed as shown", () => {
    expect(shownCommand(["/usr/bin/go", "build", "-ldflags=-s -w", "-o", ".slipway/bin/app", "./cmd/api"])).toBe("/usr/bin/go build '-ldflags=-s -w' -o .slipway/bin/app ./cmd/api");
    expect(shownCommand(["echo", "it's"])).toBe("echo 'it'\\''s'");
  });
});
