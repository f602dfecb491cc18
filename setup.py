"""Packaging beyond pyproject.toml: the top-level folders ``templates/``, ``grammar/`` and
``migrations/`` go into the wheel as the packages ``bot.templates``, ``bot.grammar`` and
``bot.migrations`` with every file and subfolder below them (whatever a game adds: no
per-file lists), found at run time through ``importlib.resources`` (``bot/__init__.py``).

The compiled search core of the word-grid move generators, ``bot.games._gridcore``
(Cython, ``bot/games/_gridcore.pyx``; issue 25), is built here: ``pip install``,
``pip install -e`` and ``pip wheel`` compile it (Cython comes from ``[build-system]
requires``; a C compiler and the Python headers from ``scripts/setup``)."""

from Cython.Build import cythonize
from setuptools import Extension, find_namespace_packages, find_packages, setup

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
    exclude_package_data={"": ["*.pyc", "__pycache__", "*.pyx", "*.c"]},
    ext_modules=cythonize(
        [Extension("bot.games._gridcore", ["bot/games/_gridcore.pyx"], extra_compile_args=["-O2"])],
        compiler_directives={"language_level": "3"},
    ),
)
