"""The tablet as a kiosk (docs/web.md "On a tablet"): the manifest and icons that install the
dashboard to a home screen, the screen kept on during a game (and the fallback line where the
browser cannot), the scoreboard's type size for reading from 2 m, and every page usable on a
768-px-wide portrait tablet. The browser tests run Debian's Chromium through Playwright."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from web_testkit import screenshot

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "web" / "static" / "icons"
# the minimum sizes docs/web.md states for the scoreboard read from 2 m (CSS px, computed style)
MIN_TOTAL_PX = 84
MIN_NAME_PX = 28
MIN_TO_PLAY_PX = 32
PAGES = ("/", "/board", "/history", "/new", "/devices", "/capture", "/enrol", "/enrol/camera", "/settings", "/login", "/setup")


def _make_icons():
    spec = importlib.util.spec_from_file_location("make_icons", ROOT / "scripts" / "make_icons.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_the_manifest_installs_a_full_screen_app(api) -> None:
    r = api.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    m = r.get_json()
    assert m["display"] == "fullscreen" and m["display_override"] == ["fullscreen", "standalone"]
    assert m["start_url"] == "/" and m["scope"] == "/" and m["name"].startswith("tableref")
    sizes = {(i["sizes"], i["purpose"]) for i in m["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in m["icons"]:
        got = api.get(icon["src"])
        assert got.status_code == 200 and got.mimetype == "image/png", icon["src"]
        w, h = (int(v) for v in icon["sizes"].split("x"))
        assert Image.open(ICONS / Path(icon["src"]).name).size == (w, h)
    page = api.get("/").get_data(as_text=True)
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page and "apple-touch-icon" in page
    # the table's name is on the home-screen label
    admin_ok = api.setup_pin().status_code == 200
    assert admin_ok and api.post("/api/settings", {"table_name": "Table 3"}).status_code == 200
    assert api.get("/manifest.webmanifest").get_json()["name"] == "tableref · Table 3"


def test_the_committed_icons_are_what_the_script_draws(tmp_path: Path) -> None:
    written = _make_icons().write_icons(tmp_path)
    assert {p.name for p in written} == {p.name for p in ICONS.glob("*.png")}
    for p in written:
        fresh, committed = np.asarray(Image.open(p)), np.asarray(Image.open(ICONS / p.name))
        assert fresh.shape == committed.shape and np.array_equal(fresh, committed), f"{p.name}: run scripts/make_icons.py"
    maskable = np.asarray(Image.open(ICONS / "icon-maskable-512.png"))
    assert maskable[0, 0, 3] == 255  # full bleed: a launcher may crop it to any shape
    rounded = np.asarray(Image.open(ICONS / "icon-512.png"))
    assert rounded[0, 0, 3] == 0 and rounded[256, 256, 3] == 255


# -- in Chromium ---------------------------------------------------------------------------------------

def _new_page(chromium, viewport: dict, init_script: str | None = None, locale: str = "en-GB"):
    context = chromium.new_context(viewport=viewport, locale=locale)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("dialog", lambda dialog: dialog.accept())
    return context, page, errors


@pytest.mark.browser
def test_chromium_reads_the_manifest_and_finds_the_app_installable(live_server, chromium, tmp_path) -> None:
    # a profile on disk: Chromium does not offer to install apps from an incognito window
    from web_testkit import CHROMIUM, CHROMIUM_ARGS

    context = chromium.browser_type.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM,
                                                              args=CHROMIUM_ARGS, viewport={"width": 768, "height": 1024})
    page = context.pages[0] if context.pages else context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.goto(live_server.url)
    page.wait_for_selector("article.player")
    cdp = context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.webmanifest") and not manifest["errors"], manifest["errors"]
    installability = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert installability == [], installability
    context.close()
    assert not errors, errors


def _finish_the_game(svc) -> None:
    """The scoreboard test's short China game: four houses, the pile runs out, the round ends."""
    for player, space in (("blue", "lu-1"), ("green", "lu-2"), ("red", "lu-3"), ("blue", "lu-4")):
        assert svc.play({"type": "place", "player": player, "pieces": [{"kind": "house", "space": space}]}).ok
    assert svc.play({"type": "pile_exhausted"}).ok
    for player in ("green", "red"):
        assert svc.play({"type": "exchange", "player": player}).ok
    assert svc.snapshot()["outcome"] is not None


@pytest.mark.browser
def test_the_screen_stays_on_during_a_game_and_is_let_go_after_it(live_server, chromium) -> None:
    context, page, errors = _new_page(chromium, {"width": 768, "height": 1024})
    page.goto(live_server.url)
    page.wait_for_selector('#live[data-state="live"]')
    page.wait_for_selector('body[data-wake="on"]', timeout=5000)
    assert page.evaluate("TR.wake.supported && TR.wake.active()")
    assert page.locator("#wake").is_hidden()
    _finish_the_game(live_server.service)
    page.wait_for_selector("#gameover:not([hidden])")
    page.wait_for_selector('body[data-wake="idle"]', timeout=3000)
    assert not page.evaluate("TR.wake.active()")
    # a new game takes the lock again (another page: the poll, without a stream of its own)
    live_server.service.new_game({"players": ["blue", "green", "red"], "board": "china-a"}, actor="test")
    page.goto(live_server.url + "settings")
    page.wait_for_selector('body[data-wake="on"]', timeout=5000)
    context.close()
    assert not errors, errors


@pytest.mark.browser
@pytest.mark.parametrize("locale, words", [("en-GB", "cannot keep the screen on"), ("zh-CN", "无法保持屏幕常亮")])
def test_without_the_wake_lock_api_a_visible_line_says_what_to_do(live_server, chromium, locale, words) -> None:
    context, page, errors = _new_page(chromium, {"width": 768, "height": 1024},
                                      init_script="delete Navigator.prototype.wakeLock; delete navigator.wakeLock;",
                                      locale=locale)
    page.goto(live_server.url)
    page.wait_for_selector('body[data-wake="unsupported"]', timeout=5000)
    assert page.evaluate("navigator.wakeLock === undefined")
    bar = page.locator("#wake")
    bar.wait_for(state="visible")
    assert words in bar.text_content()
    box = bar.bounding_box()
    assert box["y"] < 200 and box["height"] > 20  # right under the top bar, not hidden away
    screenshot(page, f"kiosk-wake-fallback-{locale}")
    page.click("#wake-dismiss")
    assert bar.is_hidden()
    page.reload()
    page.wait_for_selector('body[data-wake="unsupported"]')
    assert bar.is_hidden()  # dismissed for this tablet's session
    context.close()
    assert not errors, errors


def _lan_address() -> str | None:
    """This machine's address on its network (not loopback), or None."""
    import socket

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # UDP: nothing is sent, this only picks the outgoing interface
        addr = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr


@pytest.mark.browser
def test_over_plain_http_on_the_network_the_tablet_gets_the_fallback_line(data_dir, service, chromium, tmp_path) -> None:
    """How a tablet really meets the dashboard (http://tableref.local:8080/): not a secure context,
    so no Wake Lock API (the line says why) and Chromium will not install it as an app."""
    from web.app import create_app
    from web.server import make_server
    from web_testkit import CHROMIUM, CHROMIUM_ARGS, FAST_HASH, PIN

    addr = _lan_address()
    if addr is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    app = create_app(service, data_dir=data_dir, initial_pin=PIN, config={"PIN_HASH_METHOD": FAST_HASH})
    server = make_server(app, addr, 0, threads=16).start()
    context = None
    try:
        assert server.wait_ready(10)
        context = chromium.browser_type.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM,
                                                                  args=CHROMIUM_ARGS, viewport={"width": 768, "height": 1024})
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(server.url)
        page.wait_for_selector('body[data-wake="unsupported"]', timeout=5000)
        assert page.evaluate("window.isSecureContext") is False
        assert "plain http" in page.locator("#wake").text_content() and page.locator("#wake").is_visible()
        installability = context.new_cdp_session(page).send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert [e["errorId"] for e in installability] == ["not-from-secure-origin"]
        screenshot(page, "kiosk-wake-plain-http")
    finally:
        if context is not None:
            context.close()
        server.stop()


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [{"width": 768, "height": 1024}, {"width": 1280, "height": 800}])
def test_the_scoreboard_is_readable_from_two_metres(live_server, chromium, viewport) -> None:
    context, page, errors = _new_page(chromium, viewport)
    page.goto(live_server.url)
    page.wait_for_selector("article.player.active")
    sizes = page.evaluate("""() => {
        const px = (el) => parseFloat(getComputedStyle(el).fontSize);
        return {totals: [...document.querySelectorAll('.player .total')].map(px),
                names: [...document.querySelectorAll('.player .player-name')].map(px),
                toPlay: [...document.querySelectorAll('#turn .player-chip.big')].map(px)};
    }""")
    assert len(sizes["totals"]) == 3 and min(sizes["totals"]) >= MIN_TOTAL_PX, sizes
    assert min(sizes["names"]) >= MIN_NAME_PX, sizes
    assert sizes["toPlay"] and min(sizes["toPlay"]) >= MIN_TO_PLAY_PX, sizes
    # and the cards still fit: nothing overflows sideways
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"kiosk-scoreboard-{viewport['width']}")
    # five players: a three-digit total at that size still fits inside its card
    live_server.service.new_game({"players": ["blue", "green", "violet", "red", "yellow"], "board": "china-b"}, actor="test")
    page.wait_for_function("() => document.querySelectorAll('article.player').length === 5")
    room = page.evaluate("""() => [...document.querySelectorAll('.player')].map((card) => {
        const total = card.querySelector('.total'), cs = getComputedStyle(total), ctx = document.createElement('canvas').getContext('2d');
        ctx.font = cs.fontWeight + ' ' + cs.fontSize + ' ' + cs.fontFamily;
        const inner = card.clientWidth - parseFloat(getComputedStyle(card).paddingLeft) - parseFloat(getComputedStyle(card).paddingRight);
        return {need: ctx.measureText('188').width, inner, px: parseFloat(cs.fontSize)};
    })""")
    assert all(r["px"] >= MIN_TOTAL_PX and r["need"] <= r["inner"] for r in room), room
    context.close()
    assert not errors, errors


@pytest.mark.browser
def test_every_page_fits_a_portrait_tablet_and_every_nav_link_works(live_server, chromium) -> None:
    context, page, errors = _new_page(chromium, {"width": 768, "height": 1024})
    page.goto(live_server.url)
    page.wait_for_selector("article.player")
    links = page.locator("nav.nav a").evaluate_all("as => as.map(a => ({id: a.dataset.nav, href: a.getAttribute('href')}))")
    assert {"new", "devices"} <= {link["id"] for link in links}
    for link in links:
        a = page.locator(f'nav.nav a[data-nav="{link["id"]}"]')
        box = a.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 768 and box["y"] + box["height"] <= 1024, (link, box)
        # the link itself is what a finger at its centre touches (nothing over it, not scrolled away)
        hit = page.evaluate("([x, y]) => { const e = document.elementFromPoint(x, y); return e && e.closest('a') && e.closest('a').dataset.nav; }",
                            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
        assert hit == link["id"], (link, hit)
    for link in links:
        page.click(f'nav.nav a[data-nav="{link["id"]}"]')
        page.wait_for_url(live_server.url.rstrip("/") + link["href"])
        assert page.locator(f'nav.nav a[data-nav="{link["id"]}"]').get_attribute("aria-current") == "page"
    paths = list(dict.fromkeys([*PAGES, *(link["href"] for link in links)]))
    wide = {}
    for path in paths:
        page.goto(live_server.url.rstrip("/") + path)
        page.wait_for_load_state("load")
        page.wait_for_timeout(700)  # the page's script has filled it
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 768:
            wide[path] = width
            screenshot(page, "kiosk-too-wide" + path.replace("/", "-"))
    assert not wide, f"pages wider than a 768-px tablet: {wide}"
    page.goto(live_server.url)
    page.wait_for_selector("article.player")
    screenshot(page, "kiosk-portrait-768")
    context.close()
    # script failures only: what a page fetches is other tests' business (e.g. 503 for the capture
    # photo of a table without a camera)
    failures = [e for e in errors if e.startswith("page error")]
    assert not failures, failures
