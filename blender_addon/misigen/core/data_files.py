"""Loads the YAML tables shipped in ``core/data`` once (safe loading only)."""
from __future__ import annotations

import functools
from pathlib import Path

import yaml

DATA_DIR = Path(__file__).resolve().parent / "data"


@functools.lru_cache(maxsize=None)
def load_table(name: str):
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def element_table() -> dict:
    return load_table("elements.yaml")


def covalent_radius(element: str) -> float:
    return float(element_table().get(element, {}).get("covalent", 1.5))


def vdw_radius(element: str) -> float:
    return float(element_table().get(element, {}).get("vdw", 2.0))


def is_metal(element: str) -> bool:
    return bool(element_table().get(element, {}).get("metal", False))
