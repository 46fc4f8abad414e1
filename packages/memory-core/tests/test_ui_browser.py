"""`memory ui` in a real browser: headless Chromium (Debian's) driven by Selenium over the real CLI server.

One server (`memory ui --no-open`, a subprocess on a seeded embedded store) and one browser
session serve the whole module; the tests run in order, each on what a user would see and do.
A screenshot of each page lands in the artifacts folder (`MEMORY_UI_SCREENSHOTS`, or a temp dir
that the run prints). Under `CI=true` a missing Chromium, chromedriver or Selenium fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from memory_core.config import Config
from memory_core.service import MemoryService
from memory_testing.requirements import require

pytestmark = pytest.mark.browser

PROJECT = "git:example.com/acme/shop"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
_WAIT_S = 15
_BILLING = "The billing retry loop slept 30 seconds; I switched src/billing/retry.py to exponential backoff."


@dataclass
class Ui:
    base: str
    driver: Any
    service: MemoryService
    env: dict[str, str]
    shots: Path
    folder: Path

    def get(self, path: str) -> None:
        self.driver.get(self.base + path)

    def text(self) -> str:
        return str(self.driver.find_element("tag name", "main").text)

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def wait(self, check: Any) -> Any:
        from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        ignored = (NoSuchElementException, StaleElementReferenceException)
        return WebDriverWait(self.driver, _WAIT_S, ignored_exceptions=ignored).until(check)


def _env(folder: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_") or k == "MEMORY_HARNESS_CACHE"}
    return {
        **keep,
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_STATE_HOME": str(folder / "state"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "MEMORY_URL": f"sqlite:///{folder / 'memory.db'}",
        "MEMORY_PROJECT": PROJECT,
        "MEMORY_USER": "alice",
        "MEMORY_WORKER_IDLE": "5",
    }


def _seed(service: MemoryService) -> None:
    """Sixty turns in three sessions (so the list has a second page), a billing fix, a note, recalls."""
    for n in range(60):
        session = f"session-{n % 3}"
        service.capture(
            harness="claude" if n % 2 else "codex",
            session_id=session,
            turn_id=f"t{n}",
            prompt=f"step {n} of the checkout refactor",
            response=f"Done with step {n}: moved cart code into shop/cart/step{n}.py.",
            created_at=1_790_000_000.0 + n * 60,
        )
    service.capture(
        harness="claude",
        session_id="session-billing",
        turn_id="b1",
        prompt="Why does the billing retry time out?",
        response=_BILLING,
    )
    service.save("The staging database is reset every night at 02:00 UTC.")
    service.assemble("why does billing retry time out", harness="claude", session_id="later", turn_id="r1")
    service.assemble("what is the capital of peru", harness="claude", session_id="later", turn_id="r2")


def _driver(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or ""
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER or ""))
    driver.set_page_load_timeout(_WAIT_S)
    return driver


@pytest.fixture(scope="module")
def ui() -> Iterator[Ui]:
    selenium_found = True
    try:
        import selenium  # noqa: F401
    except ImportError:
        selenium_found = False
    require(selenium_found, "selenium (pip install selenium)")
    require(CHROMIUM is not None, "chromium (apt-get install chromium)")
    require(CHROMEDRIVER is not None, "chromedriver (apt-get install chromium-driver)")
    folder = Path(tempfile.mkdtemp(prefix="memory-ui-"))
    shots = Path(os.environ.get("MEMORY_UI_SCREENSHOTS") or folder / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    env = _env(folder)
    service = MemoryService(Config.from_env(env), long_lived=True)
    _seed(service)
    # Every record's vectors now, not from the background thread while the pages are read: what
    # recall would inject must not depend on how far the backfill got.
    service.reindex()
    server = subprocess.Popen(
        [sys.executable, "-m", "memory_core.cli", "ui", "--no-open"],
        env=env,
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    driver = None
    try:
        assert server.stdout is not None
        launch = server.stdout.readline().strip()
        assert launch.startswith("http://127.0.0.1:"), launch
        driver = _driver(folder / "profile")
        driver.get(launch)
        yield Ui(launch.split("/?")[0], driver, service, env, shots, folder)
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        try:
            _, errors = server.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            _, errors = server.communicate()
        service.close()
        print(f"\nmemory ui screenshots: {shots}")
        # The launch line is the one place the token may appear: never in the server's logs.
        assert "token" not in (errors or "")


def _status(url: str, *, host: str | None = None, cookie: str | None = None, data: bytes | None = None) -> int:
    request = urllib.request.Request(url, data=data)
    if host:
        request.add_header("Host", host)
    if cookie:
        request.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(request, timeout=_WAIT_S) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_the_launch_token_becomes_a_strict_cookie_and_a_request_without_it_is_refused(ui: Ui) -> None:
    # The first load traded the token for a cookie and left an address without it.
    assert "token" not in ui.driver.current_url
    [cookie] = ui.driver.get_cookies()
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Strict"
    assert "Memory works here" in ui.text()
    port = ui.base.rsplit(":", 1)[1]
    assert _status(ui.base + "/memories") == 403
    assert _status(ui.base + "/?token=wrong") == 403
    assert _status(ui.base + "/", host=f"attacker.example:{port}", cookie=f"{cookie['name']}={cookie['value']}") == 400
    # With the cookie but without the page's CSRF field, an action is refused and nothing changes.
    count = ui.service.store.count(None)
    assert _status(ui.base + "/notes", cookie=f"{cookie['name']}={cookie['value']}", data=b"text=hi") == 403
    assert ui.service.store.count(None) == count


def test_the_overview_shows_the_stores_health_the_project_and_the_harnesses(ui: Ui) -> None:
    ui.get("/")
    text = ui.text()
    assert "reachable" in text
    assert PROJECT in text
    assert "Claude Code" in text
    assert "Last recall" in text
    # Everything the page loaded came from this server: nothing from the network.
    loaded = ui.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    assert loaded
    assert all(url.startswith(ui.base + "/") for url in loaded), loaded
    ui.shot("overview")


def test_the_memories_list_pages_newest_first_and_filters_by_session(ui: Ui) -> None:
    ui.get("/memories")
    items = ui.driver.find_elements("css selector", "ol.records > li")
    assert len(items) == 50
    assert "staging database" in items[0].text  # the note was saved last
    ui.shot("memories")
    ui.driver.find_element("link text", "Older").click()
    older = ui.driver.find_elements("css selector", "ol.records > li")
    assert len(older) == 62 - 50
    assert "step 0 of the checkout" in older[-1].text
    ui.get("/memories")
    field = ui.driver.find_element("name", "session")
    field.send_keys("session-1")
    field.submit()
    ui.wait(lambda d: "session=session-1" in d.current_url)
    items = ui.driver.find_elements("css selector", "ol.records > li")
    assert len(items) == 20
    assert all("session-1" in item.text for item in items)


def test_search_shows_the_block_recall_would_inject_and_each_hits_words(ui: Ui) -> None:
    ui.get("/search")
    box = ui.driver.find_element("name", "q")
    box.send_keys("billing retry timeout")
    box.submit()
    ui.wait(lambda d: "q=" in d.current_url)
    block = ui.driver.find_element("css selector", "pre.block").text
    assert "exponential backoff" in block
    first = ui.driver.find_element("css selector", "ol.hits > li")
    assert "injected" in first.text
    assert [m.text for m in first.find_elements("tag name", "mark")][:2] == ["billing", "retry"]
    ui.shot("search")
    ui.driver.find_element("css selector", "input[value=search]").click()
    ui.driver.find_element("css selector", "form[role=search] button").click()
    ui.wait(lambda d: "mode=search" in d.current_url)
    assert ui.driver.find_elements("css selector", "pre.block") == []
    assert "exponential backoff" in ui.text()


def test_a_record_opens_with_its_session_and_forgetting_it_deletes_it_from_the_store(ui: Ui) -> None:
    ui.get("/search?q=checkout+step+7&mode=search")
    ui.driver.find_element("css selector", "ol.hits > li a.text").click()
    ui.wait(lambda d: "/memories/" in d.current_url)
    record_id = ui.driver.current_url.rsplit("/", 1)[1]
    assert "step 7" in ui.driver.find_element("id", "record-text").text
    assert "In its session" in ui.text()
    ui.shot("record")
    ui.driver.find_element("link text", "Forget…").click()
    ui.wait(lambda d: "/forget" in d.current_url)
    ui.shot("confirm-forget")
    assert ui.service.records([record_id]), "nothing is deleted before the confirmation"
    ui.driver.find_element("css selector", "button[value=yes]").click()
    ui.wait(lambda d: "Forgot 1 record." in d.find_element("tag name", "main").text)
    assert ui.service.records([record_id]) == []


def test_marking_a_record_contradicted_keeps_it_out_of_recall_and_a_span_can_be_redacted(ui: Ui) -> None:
    [billing] = [h.record for h in ui.service.search("exponential backoff")]
    ui.get(f"/memories/{billing.id}")
    ui.driver.find_element("name", "span").send_keys("30 seconds")
    ui.driver.find_element("css selector", "form.redact button").click()
    ui.wait(lambda d: "Redacted 1 occurrence." in d.find_element("tag name", "main").text)
    text = ui.driver.find_element("id", "record-text").text
    assert "30 seconds" not in text
    assert "[REDACTED:manual]" in text
    assert "30 seconds" not in ui.service.record(billing.id).text
    ui.driver.find_element("css selector", "button[value=contradicted]").click()
    ui.wait(lambda d: "no longer recalled" in d.find_element("tag name", "main").text)
    recall = ui.service.assemble("why does billing retry time out", harness="claude", session_id="x", turn_id="c1")
    assert billing.id not in [h.record.id for h in recall.hits]


def test_a_capture_made_by_a_hook_appears_live_and_its_recall_is_listed(ui: Ui) -> None:
    ui.get("/memories")
    ui.driver.execute_script("window.__same_page = true;")
    session = "live-session"
    for event, extra in (
        ("UserPromptSubmit", {"prompt": "when is the staging database reset, and how do we deploy the shop?"}),
        ("Stop", {"last_assistant_message": "Deploys run through ops/ship-it.sh on the release branch."}),
    ):
        payload = {
            "session_id": session,
            "transcript_path": str(ui.folder / "transcript.jsonl"),
            "cwd": str(ui.folder),
            "prompt_id": "live-1",
            "permission_mode": "default",
            "hook_event_name": event,
            **extra,
        }
        done = subprocess.run(
            [sys.executable, "-m", "memory_core.cli", "hook", "claude"],
            input=json.dumps(payload),
            env=ui.env,
            cwd=ui.folder,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    started = time.monotonic()
    ui.wait(lambda d: "ops/ship-it.sh" in d.find_element("id", "live").text)
    assert ui.driver.execute_script("return window.__same_page === true;"), "the page reloaded"
    assert time.monotonic() - started < _WAIT_S
    ui.shot("memories-live")
    ui.get("/recalls")
    first = ui.driver.find_element("css selector", "ol.recalls > li")
    assert "how do we deploy the shop?" in first.text
    # What the hook's recall injected, with the words that carried it past the floor.
    assert "reset every night" in first.find_element("css selector", "ol.items").text
    assert "staging" in [m.text for m in first.find_elements("tag name", "mark")]
    texts = [li.text for li in ui.driver.find_elements("css selector", "ol.recalls > li")]
    assert any("Nothing injected" in t and "capital of peru" in t for t in texts)
    ui.shot("recalls")


def test_a_record_opens_from_the_keyboard_alone(ui: Ui) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ui.get("/memories")
    keys = ActionChains(ui.driver)
    keys.send_keys(Keys.TAB).perform()
    assert ui.driver.switch_to.active_element.text == "Skip to content"
    for _ in range(40):
        keys.send_keys(Keys.TAB).perform()
        if ui.driver.switch_to.active_element.get_attribute("class") == "text":
            break
    focused = ui.driver.switch_to.active_element
    assert focused.get_attribute("class") == "text", "Tab never reached the first record"
    keys.send_keys(Keys.ENTER).perform()
    ui.wait(lambda d: "/memories/" in d.current_url)
    assert ui.driver.find_element("id", "record-text").text


def test_pages_fit_a_narrow_window(ui: Ui) -> None:
    ui.driver.set_window_size(400, 900)
    try:
        for path in ("/", "/memories", "/search?q=billing+retry", "/recalls"):
            ui.get(path)
            wide = ui.driver.execute_script("return document.documentElement.scrollWidth;")
            assert wide <= ui.driver.execute_script("return window.innerWidth;"), path
        ui.get("/memories")
        ui.shot("memories-narrow")
    finally:
        ui.driver.set_window_size(1280, 1000)
