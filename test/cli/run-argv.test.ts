// `slipway run <command…>`: the command's words are its own from its first word on, options included; Slipway's
// options before it still apply, and an explicit -- is left as it is.
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/program.ts";
import { withRunCommandSeparated } from "../../cli/run-argv.ts";

const program = buildProgram();
const argv = (...words: string[]) => withRunCommandSeparated(program, ["node", "slipway", ...words]).slice(2);

describe("slipway run's arguments", () => {
  it("puts -- before the command's first word, after Slipway's own options", () => {
    expect(argv("run", "echo", "ok")).toEqual(["run", "--", "echo", "ok"]);
    expect(argv("run", "--app", "x", "ls", "-a")).toEqual(["run", "--app", "x", "--", "ls", "-a"]);
    expect(argv("run", "-a", "x", "--timeout=5", "--detach", "rake", "--app", "y")).toEqual(["run", "-a", "x", "--timeout=5", "--detach", "--", "rake", "--app", "y"]);
    expect(argv("--server", "http://s", "run", "exit 7")).toEqual(["--server", "http://s", "run", "--", "exit 7"]);
  });

  it("leaves an explicit --, --help and every other command alone", () => {
    expect(argv("run", "--", "ls", "-a")).toEqual(["run", "--", "ls", "-a"]);
    expect(argv("run", "--help")).toEqual(["run", "--help"]);
    expect(argv("logs", "--run", "run")).toEqual(["logs", "--run", "run"]);
    expect(argv("env:set", "run")).toEqual(["env:set", "run"]);
  });
});
