// Python apps deployed for real: packages installed by pip from the machine's own package index (handed to Slipway
// as BUILD_ENV and BUILD_READONLY_PATHS, as an offline operator would), in the app's sandbox, served through the
// router. Flask with gunicorn (zip and git), a Django project made by django-admin with a release phase and
// collectstatic, FastAPI with uvicorn; the redeploy that reuses the virtualenv; the errors a user can make; and the
// sandbox probed from inside a Python app.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { GitHubDouble } from "../helpers/git.ts";
import { pipIndexBuildSettings } from "../helpers/pip-index.ts";
import { TEST_RUNTIME } from "../helpers/runtime.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const isRoot = process.getuid?.() === 0;
/** Swarm builds through the docker driver, as the docker suite tests: there only what serving as a service changes runs. */
const ON_SWARM = TEST_RUNTIME === "swarm";
let server: TestServer;
let owner: Client;
const github = new GitHubDouble();
let counter = 0;

const FLASK = {
  "requirements.txt": "flask\ngunicorn\n",
  Procfile: "web: gunicorn --workers 1 app:app\n",
  "app.py": `import os, sys
from flask import Flask
app = Flask(__name__)

@app.get("/")
def index():
    return f"flask {os.environ.get('GREETING', 'hello')} from {sys.prefix}"
`,
};

async function newApp(fields: Record<string, unknown> = {}): Promise<string> {
  const slug = `py-${process.pid}-${++counter}`;
  expect((await owner.post("/api/apps", { slug, ...fields })).status).toBe(201);
  return slug;
}

async function buildLog(slug: string, deployment: string): Promise<string> {
  const res = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${deployment}&limit=1000`);
  return res.body.map((l: { line: string }) => l.line).join("\n");
}

async function runtimeLog(slug: string): Promise<string> {
  const res = await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=200`);
  return res.body.map((l: { line: string }) => l.line).join("\n");
}

async function deployFiles(slug: string, files: Record<string, string>, dir: string | null = null) {
  return deploy(owner, slug, await zipFolder(dir, files));
}

async function body(slug: string, pathname = "/"): Promise<string> {
  const answer = await requestApp(server.url, `${slug}.localhost`, pathname);
  expect(answer.status, answer.body).toBe(200);
  return answer.body;
}

beforeAll(async () => {
  server = await startServer({
    ...pipIndexBuildSettings(),
    GITHUB_URL: github.fileUrl,
    DEFAULT_MAX_APPS: "50",
    DEFAULT_REQUESTS_PER_MINUTE: "100000",
    DEFAULT_MAX_UPLOAD_BYTES: String(20 * 1024 ** 2),
  });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server?.close());

describe.runIf(isRoot)("python builder, deployed", () => {
  it("Flask with gunicorn from a zip: installs from the index, answers from its virtualenv; a redeploy with the same requirements skips pip", async () => {
    const slug = await newApp();
    const first = await deployFiles(slug, FLASK);
    const firstLog = await buildLog(slug, first.id);
    expect(first.status, firstLog).toBe("LIVE");
    expect(first.builder).toBe("python");
    expect(firstLog).toMatch(/building with the python builder/);
    expect(firstLog).toMatch(/-m venv --without-pip \.venv/);
    expect(firstLog).toMatch(/pip --python \.venv\/bin\/python install -r requirements\.txt/);
    expect(firstLog).toMatch(/Successfully installed .*[Ff]lask/);
    expect(await body(slug)).toBe("flask hello from /app/.venv");

    const second = await deployFiles(slug, { ...FLASK, "app.py": FLASK["app.py"].replace("flask {", "flask again {") });
    const secondLog = await buildLog(slug, second.id);
    expect(second.status, secondLog).toBe("LIVE");
    expect(secondLog).toMatch(/requirements\.txt is unchanged: reusing \.venv from the previous release \(\d+ files\), skipping pip install/);
    expect(secondLog).not.toMatch(/pip --python/);
    expect(await body(slug)).toBe("flask again hello from /app/.venv");
    const apiView = (await owner.get(`/api/apps/${slug}`)).body.deployments.map((d: { builder: string }) => d.builder);
    expect(apiView).toEqual(["python", "python"]);
    const graphql = await owner.post("/graphql", { query: `{ app(slug: "${slug}") { deployments(limit: 1) { builder } } }` });
    expect(graphql.body.data.app.deployments).toEqual([{ builder: "python" }]);
  });

  it.skipIf(ON_SWARM)("Flask from a git repository, with an env var the app reads", async () => {
    github.create(`acme/flask-${counter}`, FLASK);
    const slug = await newApp({ repo: `acme/flask-${counter}` });
    expect((await owner.post(`/api/apps/${slug}/env`, { GREETING: "bonjour" })).status).toBe(200);
    const started = await owner.post(`/api/apps/${slug}/deploy`, {});
    expect(started.status).toBe(202);
    const done = await waitForDeployment(owner, slug, started.body.id, 120_000);
    expect(done.status, await buildLog(slug, done.id)).toBe("LIVE");
    expect(done.builder).toBe("python");
    expect(await body(slug)).toBe("flask bonjour from /app/.venv");
  });

  it.skipIf(ON_SWARM)("a Django project made by django-admin: gunicorn <project>.wsgi by default, collectstatic, and the release phase's migrate", async () => {
    const { project, remove } = makeDjangoProject();
    const slug = await newApp();
    const files = { "requirements.txt": "django\ngunicorn\n", Procfile: "release: python manage.py migrate --noinput\n" };
    const done = await deployFiles(slug, files, project).finally(remove);
    const log = await buildLog(slug, done.id);
    expect(done.status, log).toBe("LIVE");
    expect(log).toMatch(/Django project mysite found: web defaults to gunicorn mysite\.wsgi/);
    expect(log).toMatch(/\$ python manage\.py collectstatic --noinput/);
    expect(log).toMatch(/static files copied to '\/app\/staticfiles'/);
    expect(log).toMatch(/Applying auth\.0001_initial\.\.\. OK/);
    expect(log).toMatch(/\$ gunicorn mysite\.wsgi/);
    const page = await requestApp(server.url, `${slug}.localhost`, "/admin/login/");
    expect(page.status, await runtimeLog(slug)).toBe(200);
    expect(page.body).toMatch(/Django administration/);
  });

  it.skipIf(ON_SWARM)("FastAPI served by uvicorn on $PORT", async () => {
    const slug = await newApp();
    const files = {
      "requirements.txt": "fastapi\nuvicorn\n",
      Procfile: "web: uvicorn main:app --host 0.0.0.0 --port $PORT\n",
      "main.py": 'from fastapi import FastAPI\napp = FastAPI()\n\n@app.get("/")\ndef index():\n    return {"served": "fastapi"}\n',
    };
    const done = await deployFiles(slug, files);
    expect(done.status, await buildLog(slug, done.id)).toBe("LIVE");
    expect(JSON.parse(await body(slug))).toEqual({ served: "fastapi" });
  });

  it.skipIf(ON_SWARM)("fails a project with no web command, and a .python-version that is not installed, saying what to do", async () => {
    const slug = await newApp();
    const noWeb = await deployFiles(slug, { "requirements.txt": "flask\n", "app.py": "" });
    expect(noWeb.status).toBe("FAILED");
    expect(noWeb.builder).toBe("python");
    expect(noWeb.error).toMatch(/needs a Procfile with a web: line .*"web: gunicorn app:app"/);
    expect(await buildLog(slug, noWeb.id)).toMatch(/web: gunicorn app:app/);

    const pinned = await deployFiles(slug, { ...FLASK, ".python-version": "3.99\n" });
    expect(pinned.status).toBe("FAILED");
    expect(pinned.error).toMatch(/\.python-version asks for Python 3\.99, which this server does not have \(installed: 3\.\d+/);
  });

  it.skipIf(ON_SWARM)("a failing pip install fails the deploy with pip's own words, and the live release keeps serving", async () => {
    const slug = await newApp();
    expect((await deployFiles(slug, FLASK)).status).toBe("LIVE");
    const broken = await deployFiles(slug, { ...FLASK, "requirements.txt": "flask\nno-such-package-slipway==1.0\n" });
    expect(broken.status).toBe("FAILED");
    expect(broken.error).toMatch(/pip install \(requirements\.txt\) failed \(exit code 1\)/);
    expect(await buildLog(slug, broken.id)).toMatch(/No matching distribution found for no-such-package-slipway/);
    expect(await body(slug)).toBe("flask hello from /app/.venv");
  });
});

// What a Python app sees of its sandbox: the same layers as a Node app's (test/hosting/sandbox.test.ts).
const PROBE = `import json, os, socket, http.server

def attempt(action):
    try:
        return action()
    except OSError as error:
        return error.__class__.__name__ + ":" + str(error.errno)

def write(path):
    def go():
        with open(path, "w") as f:
            f.write("x")
        return "WROTE"
    return go

def read(path):
    def go():
        with open(path) as f:
            return "READ " + f.read(100)
    return go

def connect(host, port):
    def go():
        with socket.create_connection((host, port), timeout=1.5):
            return "CONNECTED"
    return go

def status(field):
    with open("/proc/self/status") as f:
        return next(line.split(":", 1)[1].strip() for line in f if line.startswith(field + ":"))

class Probe(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        platform_port = int(os.environ["PLATFORM_PORT"])
        result = {
            "uid": os.getuid(),
            "capEff": status("CapEff"),
            "noNewPrivs": status("NoNewPrivs"),
            "processes": len([p for p in os.listdir("/proc") if p.isdigit()]),
            "readShadow": attempt(read("/etc/shadow")),
            "readPlatformDb": attempt(read(os.environ["PLATFORM_DB"])),
            "writeUsr": attempt(write("/usr/pwned")),
            "writeRoot": attempt(write("/pwned")),
            "writeApp": attempt(write("/app/probe.txt")),
            "platformPort": attempt(connect("127.0.0.1", platform_port)),
            "hostPostgres": attempt(connect("127.0.0.1", 5432)),
            "buildMirrorVisible": os.path.exists(os.environ["MIRROR"]),
            "buildCacheVisible": os.path.exists("/cache"),
            "setuidFiles": [os.path.join(d, f) for d, _, fs in os.walk("/usr") for f in fs
                            if not os.path.islink(os.path.join(d, f)) and os.stat(os.path.join(d, f)).st_mode & 0o6000][:5],
        }
        data = json.dumps(result).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

http.server.HTTPServer(("0.0.0.0", int(os.environ["PORT"])), Probe).serve_forever()
`;

describe.runIf(isRoot)("python app sandbox, probed from inside", () => {
  it("runs as its own uid with no capabilities, sees no host file or process, writes only /app, reaches no host service", async () => {
    const slug = await newApp();
    const db = path.join(server.config.dataDir, "slipway.db");
    const mirror = server.config.hosting.build.readOnlyPaths[0];
    const env = { PLATFORM_PORT: new URL(server.url).port, PLATFORM_DB: db, MIRROR: mirror };
    expect((await owner.post(`/api/apps/${slug}/env`, env)).status).toBe(200);
    // The build sees the operator's mirror read-only and its own cache read-write; the app sees neither.
    const release = `release: touch "$MIRROR/pwned" 2>/dev/null && echo MIRROR-WRITTEN || echo MIRROR-READ-ONLY; ls "$MIRROR" >/dev/null && echo MIRROR-READABLE; touch /cache/kept && echo CACHE-WRITABLE`;
    const done = await deployFiles(slug, { "requirements.txt": "\n", Procfile: `web: python3 probe.py\n${release}\n`, "probe.py": PROBE });
    const log = await buildLog(slug, done.id);
    expect(done.status, log).toBe("LIVE");
    expect(log).toMatch(/MIRROR-READ-ONLY\nMIRROR-READABLE\nCACHE-WRITABLE/);
    expect(fs.existsSync(path.join(mirror, "pwned"))).toBe(false);
    const seen = JSON.parse(await body(slug));
    // The local runtime gives each app a uid of its own; a container runs as the image's app user.
    if (TEST_RUNTIME === "local") expect(seen.uid).toBeGreaterThanOrEqual(200_000);
    else expect(seen.uid).toBe(10001);
    expect(seen.capEff).toBe("0000000000000000");
    // Swarm services cannot set no-new-privileges (Engine API 1.41); their image holds no setuid file instead.
    expect(seen.noNewPrivs).toBe(TEST_RUNTIME === "swarm" ? "0" : "1");
    // The host's /usr (local) has setuid programs, which no-new-privileges disarms; Slipway's images have none.
    if (TEST_RUNTIME !== "local") expect(seen.setuidFiles).toEqual([]);
    expect(seen.processes).toBeLessThanOrEqual(3);
    expect(seen.readShadow).toMatch(/^FileNotFoundError/);
    expect(seen.readPlatformDb).toMatch(/^(FileNotFoundError|PermissionError)/);
    expect(seen.writeUsr).toMatch(/^OSError:30$/); // EROFS
    expect(seen.writeRoot).toMatch(/^OSError:30$/);
    // The local sandbox binds the release read-write; a container's /app is its read-only image (files go to /data).
    expect(seen.writeApp).toBe(TEST_RUNTIME === "local" ? "WROTE" : "OSError:30");
    expect(seen.platformPort).not.toBe("CONNECTED");
    expect(seen.hostPostgres).not.toBe("CONNECTED");
    expect(seen.buildMirrorVisible).toBe(false);
    expect(seen.buildCacheVisible).toBe(false);
  });
});

/** `django-admin startproject mysite` from a throwaway virtualenv filled from the same index, with STATIC_ROOT set. */
function makeDjangoProject(): { project: string; remove(): void } {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-django-"));
  const settings = pipIndexBuildSettings();
  const env = { ...process.env, ...JSON.parse(settings.BUILD_ENV), PIP_DISABLE_PIP_VERSION_CHECK: "1" };
  execFileSync("/usr/bin/python3", ["-m", "venv", "--without-pip", path.join(work, "venv")]);
  execFileSync("/usr/bin/python3", ["-m", "pip", "--python", path.join(work, "venv/bin/python"), "install", "-q", "django"], { env });
  const project = path.join(work, "project");
  fs.mkdirSync(project);
  execFileSync(path.join(work, "venv/bin/django-admin"), ["startproject", "mysite", project]);
  fs.appendFileSync(path.join(project, "mysite/settings.py"), '\nSTATIC_ROOT = BASE_DIR / "staticfiles"\n');
  return { project, remove: () => fs.rmSync(work, { recursive: true, force: true }) };
}
