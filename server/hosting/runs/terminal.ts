// An interactive run's terminal. Inside the app's sandbox a small Python program (the platform's own, never the
// user's) gives the command a pseudo-terminal: it forks the command on a pty, copies the pty's output to its stdout
// and reads framed messages on its stdin: keystrokes for the pty, and window sizes. Keystrokes go through the pty's
// line discipline, so Ctrl-C reaches the command as SIGINT and a resize as SIGWINCH, as in any terminal. The
// user's command reaches the sandbox's own shell through an environment variable, never a command line.

/** Frames on the helper's stdin: a kind byte, a 4-byte big-endian length, the payload. */
const KEYS = 0x64; // "d"
const RESIZE = 0x72; // "r"

export interface TerminalSize {
  cols: number;
  rows: number;
}

export const TERMINAL_LIMITS = { min: 1, max: 1000 };

const PTY_HELPER = String.raw`
import fcntl, os, pty, select, signal, struct, sys, termios
command = os.environ.pop("SLIPWAY_RUN_COMMAND")
rows, cols = int(os.environ.pop("SLIPWAY_TERMINAL_ROWS")), int(os.environ.pop("SLIPWAY_TERMINAL_COLS"))
os.environ.setdefault("TERM", "xterm-256color")
pid, master = pty.fork()
if pid == 0:
    os.execv("/bin/sh", ["/bin/sh", "-c", command])
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

/** argv and env that run `command` on a terminal of `size` inside the sandbox (python3 from the sandbox's /usr). */
export function terminalProcess(command: string, size: TerminalSize): { argv: string[]; env: Record<string, string> } {
  return {
    argv: ["/usr/bin/python3", "-c", PTY_HELPER],
    env: { SLIPWAY_RUN_COMMAND: command, SLIPWAY_TERMINAL_ROWS: String(size.rows), SLIPWAY_TERMINAL_COLS: String(size.cols) },
  };
}

function frame(kind: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = kind;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** Keystrokes (or pasted text) for the terminal. */
export function keysFrame(keys: Buffer): Buffer {
  return frame(KEYS, keys);
}

/** A new window size: the command gets SIGWINCH. */
export function resizeFrame(size: TerminalSize): Buffer {
  return frame(RESIZE, Buffer.from(`${size.rows} ${size.cols}`));
}

/** A size within bounds, or null (a client's message is never trusted as is). */
export function terminalSize(value: { cols?: unknown; rows?: unknown }): TerminalSize | null {
  const ok = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= TERMINAL_LIMITS.min && (n as number) <= TERMINAL_LIMITS.max;
  return ok(value.cols) && ok(value.rows) ? { cols: value.cols, rows: value.rows } : null;
}
