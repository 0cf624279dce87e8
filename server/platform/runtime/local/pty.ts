// A terminal inside the sandbox (RunSpec.terminal on the local runtime). bubblewrap has no pty of its own, so a
// small Python program (the platform's own, never the user's; python3 from the sandbox's /usr) forks the command
// on one: it copies the pty's output to its stdout and reads framed messages on its stdin, keystrokes for the pty
// and window sizes. Keystrokes go through the pty's line discipline, so Ctrl-C reaches the command as SIGINT and a
// resize as SIGWINCH. The command's argv reaches the helper through an environment variable, never a command line.
import { PassThrough, type Readable } from "node:stream";
import type { RunTerminal, TerminalSize } from "../types.ts";

/** Frames on the helper's stdin: a kind byte, a 4-byte big-endian length, the payload. */
const KEYS = 0x64; // "d"
const RESIZE = 0x72; // "r"

const PTY_HELPER = String.raw`
import fcntl, json, os, pty, select, signal, struct, sys, termios
argv = json.loads(os.environ.pop("SLIPWAY_TERMINAL_ARGV"))
rows, cols = int(os.environ.pop("SLIPWAY_TERMINAL_ROWS")), int(os.environ.pop("SLIPWAY_TERMINAL_COLS"))
os.environ.setdefault("TERM", "xterm-256color")
pid, master = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
for ignored in (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP):
    signal.signal(ignored, signal.SIG_IGN)
def resize(r, c):
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
resize(rows, cols)
pending, reading = b"", True
while True:
    ready = select.select([master] + ([0] if reading else []), [], [])[0]
    if master in ready:
        try:
            out = os.read(master, 65536)
        except OSError:
            out = b""
        if not out:
            break
        os.write(1, out)
    if 0 in ready:
        chunk = os.read(0, 65536)
        if not chunk:
            reading = False
            os.kill(pid, signal.SIGHUP)
        pending += chunk
        while len(pending) >= 5:
            kind, size = pending[0], struct.unpack(">I", pending[1:5])[0]
            if len(pending) < 5 + size:
                break
            body, pending = pending[5:5 + size], pending[5 + size:]
            if kind == ${KEYS}:
                os.write(master, body)
            elif kind == ${RESIZE}:
                r, c = body.split()
                resize(int(r), int(c))
status = os.waitpid(pid, 0)[1]
code = os.waitstatus_to_exitcode(status)
sys.exit(128 - code if code < 0 else code)
`;

/** What runs `argv` on `terminal` inside the sandbox: the helper's argv and env, and what to feed its stdin. */
export function onPty(argv: string[], terminal: RunTerminal): { argv: string[]; env: Record<string, string>; stdin: Readable } {
  const stdin = new PassThrough();
  let initial: TerminalSize | undefined;
  // The first call is the size now (the helper starts with it); later ones are changes.
  terminal.watchSize((size) => (initial ? stdin.write(frame(RESIZE, Buffer.from(`${size.rows} ${size.cols}`))) : (initial = size)));
  terminal.keys.on("data", (keys: Buffer) => stdin.write(frame(KEYS, keys)));
  terminal.keys.once("end", () => stdin.end());
  const size = initial!;
  return {
    argv: ["/usr/bin/python3", "-c", PTY_HELPER],
    env: { SLIPWAY_TERMINAL_ARGV: JSON.stringify(argv), SLIPWAY_TERMINAL_ROWS: String(size.rows), SLIPWAY_TERMINAL_COLS: String(size.cols) },
    stdin,
  };
}

function frame(kind: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = kind;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}
