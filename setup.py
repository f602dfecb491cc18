"""Packaging beyond pyproject.toml: the top-level folders ``templates/``, ``grammar/`` and
``migrations/`` go into the wheel as the packages ``bot.templates``, ``bot.grammar`` and
``bot.migrations`` with every file and subfolder below them (whatever a game adds: no
per-file lists), found at run time through ``importlib.resources`` (``bot/__init__.py``)."""

from setuptools import find_namespace_packages, find_packages, setup

DATA = ("templates", "grammar", "migrations")
NOT_DATA = ["__pycache__", "*.__pycache__"]

data_packages = {}
for folder in DATA:
    data_packages[f"bot.{folder}"] = folder
    for sub in find_namespace_packages(where=folder, exclude=NOT_DATA):
        data_packages[f"bot.{folder}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

setup(
    packages=find_packages(include=["bot", "bot.*"]) + list(data_packages),
    package_dir={name: path for name, path in data_packages.items() if name.count(".") == 1},
    package_data={name: ["*"] for name in data_packages},
    exclude_package_data={"": ["*.pyc", "__pycache__"]},
)
