"""The dashboard found on the network by name (tableref.mdns).

The multicast tests run the real ``tableref run`` and a zeroconf browser inside a network
namespace of their own (``unshare -n``: loopback only, multicast switched on), so no mDNS packet
leaves this machine. Where namespaces cannot be made (not root, no ``unshare``) they skip and say why;
the pure parts are tested everywhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tableref import mdns
from tableref.config import ConfigError, config_from_dict

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NETNS_SETUP = "ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo"


def test_instance_names_are_the_tables_name_within_dns_sd_limits() -> None:
    assert mdns.instance_name("Table 1") == "Table 1"
    assert mdns.instance_name("  Café  table.3 ") == "Café table 3"  # no dots in an instance label
    long = mdns.instance_name("桌" * 40)
    assert len(long.encode()) <= 63 and long == "桌" * 21
    assert mdns.instance_name("") == "tableref"


@pytest.mark.parametrize("label, ok", [("tableref", True), ("table-2", True), ("a", True), ("Table", False), ("-x", False),
                                       ("x-", False), ("two words", False), ("a" * 64, False), ("tableref.local", False)])
def test_host_labels(label: str, ok: bool) -> None:
    if ok:
        assert mdns.check_host_label(label) == label
    else:
        with pytest.raises(mdns.MdnsError):
            mdns.check_host_label(label)


AVAILABLE = ["127.0.0.1", "192.168.1.20", "10.0.0.5"]


@pytest.mark.parametrize("bind, mode, announced", [
    ("0.0.0.0", "auto", ("192.168.1.20", "10.0.0.5")),   # a tablet can reach it: announce every LAN address
    ("192.168.1.20", "auto", ("192.168.1.20",)),
    ("127.0.0.1", "auto", None),                          # loopback only: nobody else could open it
    ("127.0.0.1", True, ("127.0.0.1",)),                  # asked for: on loopback only
    ("0.0.0.0", False, None),
    ("::1", True, None),                                  # IPv6 binds are not announced (IPv4 only)
])
def test_what_is_announced_follows_where_the_dashboard_listens(bind: str, mode: bool | str, announced: tuple | None) -> None:
    plan = mdns.plan("Table 1", "tableref", 8080, bind, mode, available=AVAILABLE)
    if announced is None:
        assert plan is None
    else:
        assert plan is not None and plan.addresses == announced and plan.url == "http://tableref.local:8080/"
        assert plan.instance == "Table 1" and plan.properties["path"] == "/"


def test_a_wildcard_bind_on_a_machine_with_only_loopback_announces_loopback_when_asked() -> None:
    assert mdns.plan("T", "tableref", 80, "0.0.0.0", True, available=["127.0.0.1"]).addresses == ("127.0.0.1",)  # type: ignore[union-attr]
    assert mdns.plan("T", "tableref", 80, "0.0.0.0", "auto", available=["127.0.0.1"]) is None


def test_the_configuration_checks_the_mdns_keys(tmp_path: Path) -> None:
    base = {"game": {"id": "china", "players": ["blue", "green", "red"]}}
    cfg = config_from_dict(dict(base, web={"mdns": True, "mdns_host": "table-2"}), str(tmp_path / "t.toml"))
    assert cfg.web.mdns is True and cfg.web.mdns_host == "table-2"
    assert config_from_dict(base).web.mdns == "auto" and config_from_dict(base).web.mdns_host == "tableref"
    with pytest.raises(ConfigError, match=r"\[web\] mdns_host: 'Table Two' is not a host name"):
        config_from_dict(dict(base, web={"mdns_host": "Table Two"}))
    with pytest.raises(ConfigError, match=r"\[web\] mdns"):
        config_from_dict(dict(base, web={"mdns": "yes"}))


def _netns_reason() -> str | None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "making a network namespace for multicast needs root here (unshare -n)"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare and ip (util-linux, iproute2) are needed for a private network namespace"
    probe = subprocess.run(["unshare", "-n", "sh", "-c", NETNS_SETUP], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"this machine does not allow a private network namespace: {probe.stderr.strip()}"
    return None


def _probe(tmp_path: Path, *extra: str, table: str = "Café table 3") -> dict:
    reason = _netns_reason()
    if reason:
        pytest.skip(reason)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nname = "{table}"\ndata_dir = "data"\n[game]\nid = "china"\nplayers = ["blue", "green", "red"]\n'
                   '[gpio]\npin_factory = "mock"\n[web]\nhost = "127.0.0.1"\nport = 0\nmdns = true\n', encoding="utf-8")
    cmd = f'{NETNS_SETUP} && exec "$0" "$@"'
    res = subprocess.run(["unshare", "-n", "sh", "-c", cmd, sys.executable, str(HERE / "mdns_probe.py"), str(cfg), *extra],
                         capture_output=True, text=True, timeout=150, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_a_zeroconf_browser_finds_the_table_by_name_opens_it_and_sees_it_leave(tmp_path: Path) -> None:
    found = _probe(tmp_path)
    assert found["services"], found
    (name, svc), = found["services"].items()
    assert name == f"Café table 3.{mdns.SERVICE_TYPE}"
    assert svc["port"] == found["port"] and svc["server"] == "tableref.local." and svc["addresses"] == ["127.0.0.1"]
    assert svc["properties"]["path"] == "/" and svc["properties"]["game"] == "china"
    assert found["hosts"]["tableref.local."] == ["127.0.0.1"]       # http://tableref.local:PORT/ resolves ...
    assert found["health"] == 200                                     # ... and answers
    assert f"mDNS: 'Café table 3' announced as http://tableref.local:{found['port']}/" in found["lines"]
    assert found["rc"] == 0 and found["stop_seconds"] < 2.0
    assert found["removed"] == [name]                                 # withdrawn on SIGTERM


def test_a_taken_host_name_makes_the_table_take_the_next_one(tmp_path: Path) -> None:
    found = _probe(tmp_path, "--squatter", table="Table 2")
    (name, svc), = found["services"].items()
    assert name == f"Table 2.{mdns.SERVICE_TYPE}" and svc["server"] == "tableref-2.local."
    assert found["hosts"] == {"tableref.local.": ["127.0.0.2"], "tableref-2.local.": ["127.0.0.1"]}
    assert found["health"] == 200
    assert any("announced as http://tableref-2.local:" in x for x in found["lines"])
