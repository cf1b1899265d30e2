"""run_blender.py: arguments after '--' under Blender, plain argv under python; old Blender refused."""
import importlib.util
import sys
import types

import pytest

from conftest import ROOT


def load_entry():
    spec = importlib.util.spec_from_file_location("run_blender_entry", ROOT / "run_blender.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_arguments_after_double_dash(monkeypatch):
    entry = load_entry()
    monkeypatch.setattr(sys, "argv", ["blender", "-b", "-P", "run_blender.py", "--", "render", "--out", "x"])
    assert entry._arguments() == ["render", "--out", "x"]
    monkeypatch.setattr(sys, "argv", ["run_blender.py", "validate", "out"])
    assert entry._arguments() == ["validate", "out"]


def test_old_blender_stops_with_one_message(monkeypatch, capsys):
    entry = load_entry()
    fake = types.SimpleNamespace(app=types.SimpleNamespace(version=(3, 6, 5), version_string="3.6.5"))
    monkeypatch.setitem(sys.modules, "bpy", fake)
    with pytest.raises(SystemExit) as stop:
        entry._check_blender()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.strip() == "misigen needs Blender 4.2.0 or newer; this is Blender 3.6.5."
