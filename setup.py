"""Build hook only (metadata lives in pyproject.toml).

The presets, task specs, prompts and example structures sit in the top-level ``scenes/``
and ``task_specs/`` folders, outside the package; a wheel must carry them, so ``build_py``
copies them into ``misigen/_bundled/`` of the build (never into the source tree).
``misigen.core.resources`` finds them there. Editable installs read the checkout instead.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED_FOLDERS = ("scenes", "task_specs")      # = misigen.core.resources.BUNDLED_FOLDERS
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.blend1", ".*")


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for folder in BUNDLED_FOLDERS:
            target = Path(self.build_lib) / "misigen" / "_bundled" / folder
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(ROOT / folder, target, ignore=IGNORE)


setup(cmdclass={"build_py": BuildPyWithData})
