"""The documentation page (`<root>/docs`) opened in a real headless Chromium, as a reader would.

Run by `make test-docs-page` through gateway/contract/gateway.sh, which gives INGEST_DOCUMENT_URL.
Opens the page the gateway serves, then the same page as `ingest openapi --html` prints it, saved to
a file, and for each checks:
- every operation of the document (each route's verb and the webhook) is rendered on the page;
- the browser's console shows no error and no warning, no script threw, nothing the page's
  Content-Security-Policy refused;
- the page asked for nothing from any address but its own (`data:` and `blob:` aside);
and writes a screenshot of each under target/ (docs-page.png, docs-page-file.png).

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages
separated by NUL on file descriptors 3 and 4), so no driver or WebSocket library is needed.
"""

import base64
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "target"
DEADLINE_SECONDS = 60


class Browser:
    """One headless Chromium and one page in it, spoken to over the DevTools pipe."""

    def __init__(self):
        self.profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def on_fds_3_and_4():
            os.dup2(to_browser_read, 3)
            os.dup2(from_browser_write, 4)

        self.process = subprocess.Popen(
            [
                os.environ.get("CHROMIUM", "chromium"),
                "--headless=new",
                "--no-sandbox",  # (run as root in CI)
                "--disable-gpu",
                "--remote-debugging-pipe",
                f"--user-data-dir={self.profile.name}",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-default-apps",
                "--disable-extensions",
                "--disable-sync",
                "--hide-scrollbars",
                "--mute-audio",
                "about:blank",
            ],
            pass_fds=(3, 4, to_browser_read, from_browser_write),  # (3 and 4: kept once dup2 made them)
            preexec_fn=on_fds_3_and_4,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # (its helper processes go with it on close)
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def close(self):
        """Asks the browser to close, then ends what is left of its processes, then removes
        its profile."""
        try:
            self._send({"id": 0, "method": "Browser.close"})
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.profile.cleanup()

    def _send(self, message):
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")

    def _receive(self):
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.from_browser], [], [], DEADLINE_SECONDS)
            if not ready:
                sys.exit(f"chromium said nothing for {DEADLINE_SECONDS} s")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                sys.exit("chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, **params):
        """Sends a command (to the page's session when `session`) and returns its result; the
        events that arrive meanwhile are kept in `self.events`."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self._send(message)
        while True:
            answer = self._receive()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    sys.exit(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def page(self, method, **params):
        return self.call(method, session=self.session, **params)

    def evaluate(self, expression):
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")


def operation_ids(document):
    """Every operationId of the document: the paths' operations and the webhook's. Swagger UI
    gives each operation's block the id `operations-<tag>-<operationId>`."""
    ids = []
    for group in ("paths", "webhooks"):
        for item in document.get(group, {}).values():
            for verb, operation in item.items():
                if verb in ("get", "put", "post", "patch", "delete", "options", "head"):
                    ids.append(operation["operationId"])
    return ids


def check(url, expected, screenshot, origin):
    browser = Browser()
    try:
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.page(f"{domain}.enable")
        browser.page("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
        browser.page("Page.navigate", url=url)
        deadline = time.monotonic() + DEADLINE_SECONDS
        shown = []
        while time.monotonic() < deadline:
            shown = browser.evaluate(
                "Array.from(document.querySelectorAll('[id^=\"operations-\"]')).map(e => e.id)"
            ) or []
            if all(any(id.endswith("-" + op) for id in shown) for op in expected):
                break
            time.sleep(0.2)
        time.sleep(1)  # what the page does once drawn (its search index, late errors) is seen too
        browser.page("Runtime.evaluate", expression="0")  # flushes the events that arrived
        png = browser.page("Page.captureScreenshot", format="png")["data"]
        screenshot.write_bytes(base64.b64decode(png))
        faults = []
        # A page to read: no Authorize button, no lock that opens its dialog.
        credential_controls = browser.evaluate(
            "Array.from(document.querySelectorAll('.authorize, .authorization__btn')).filter(e => e.offsetParent !== null).length"
        )
        if credential_controls:
            faults.append(f"{credential_controls} Authorize button(s) or lock(s) shown")
        missing = [op for op in expected if not any(id.endswith("-" + op) for id in shown)]
        if missing:
            faults.append(f"operations not on the page: {missing} (ids seen: {shown[:20]})")
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                faults.append(f"script error: {params['exceptionDetails'].get('exception', {}).get('description') or params['exceptionDetails'].get('text')}")
            elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "warning", "assert"):
                text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params["args"])
                faults.append(f"console {params['type']}: {text}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                faults.append(f"browser {params['entry']['level']} ({params['entry']['source']}): {params['entry']['text']}")
            elif method == "Network.requestWillBeSent":
                requested = params["request"]["url"]
                if not (requested.startswith(("data:", "blob:")) or requested == url or requested.startswith(origin)):
                    faults.append(f"asked another address: {requested}")
            elif method == "Network.loadingFailed" and not params.get("canceled"):
                faults.append(f"a request failed: {params.get('errorText')} ({params.get('blockedReason', '')})")
        return faults
    finally:
        browser.close()


def main():
    document_url = os.environ["INGEST_DOCUMENT_URL"]
    document = json.load(urllib.request.urlopen(document_url, timeout=10))
    expected = operation_ids(document)
    page_url = urllib.parse.urljoin(document_url, "docs")
    TARGET.mkdir(exist_ok=True)

    served = urllib.request.urlopen(page_url, timeout=10).read()
    printed = subprocess.run(
        [os.environ.get("INGEST_BIN", str(TARGET / "debug" / "ingest")), "openapi", "--html"],
        check=True, capture_output=True, env={**os.environ, "BASE_PATH": "/v1"},
    ).stdout
    saved = TARGET / "docs-page.html"
    saved.write_bytes(printed)

    faults = []
    if served != printed:
        faults.append("the served page differs from `ingest openapi --html`")
    origin = page_url  # the page is its own only source
    for url, screenshot in ((page_url, "docs-page.png"), (saved.as_uri(), "docs-page-file.png")):
        found = check(url, expected, TARGET / screenshot, origin)
        print(f"{url}: {len(expected)} operations expected, {len(found)} faults; screenshot target/{screenshot}")
        faults += [f"{url}: {fault}" for fault in found]
    for fault in faults:
        print(f"FAULT {fault}", file=sys.stderr)
    if faults:
        sys.exit(f"the documentation page: {len(faults)} faults")
    print("the documentation page: every operation shown, no error, nothing from another address")


if __name__ == "__main__":
    main()
