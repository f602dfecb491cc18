"""Packaging beyond pyproject.toml: the top-level folders ``templates/``, ``grammar/``,
``migrations/`` and ``translations/`` go into the wheel as the packages ``bot.templates``,
``bot.grammar``, ``bot.migrations`` and ``bot.translations`` with every file and subfolder below
them (whatever a game adds: no per-file lists), found at run time through
``importlib.resources`` (``bot/__init__.py``).

The gettext catalogs (``translations/<lang>/LC_MESSAGES/messages.po``) are compiled to ``.mo``
into the build with Babel (the build step below), so a wheel and ``pip install .`` ship
compiled translations; ``.mo`` files are never committed. A checkout without them compiles
the ``.po`` in memory at first use (bot/i18n.py).

The compiled search core of the word-grid move generators, ``bot.games._gridcore``
(Cython, ``bot/games/_gridcore.pyx``; issue 25), is built here: ``pip install``,
``pip install -e`` and ``pip wheel`` compile it (Cython comes from ``[build-system]
requires``; a C compiler and the Python headers from ``scripts/setup``)."""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, find_namespace_packages, find_packages, setup
from setuptools.command.build_py import build_py

DATA = ("templates", "grammar", "migrations", "translations")
NOT_DATA = ["__pycache__", "*.__pycache__"]

data_packages = {}
for folder in DATA:
    data_packages[f"bot.{folder}"] = folder
    for sub in find_namespace_packages(where=folder, exclude=NOT_DATA):
        data_packages[f"bot.{folder}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"


class build_py_with_catalogs(build_py):
    """build_py, then every ``.po`` under ``bot/translations`` of the build compiled to ``.mo``
    beside it (Babel's compiler, as ``pybabel compile`` does)."""

    def run(self):
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
        for po in sorted(Path(self.build_lib, "bot", "translations").glob("*/LC_MESSAGES/*.po")):
            with po.open("rb") as fh:
                catalog = read_po(fh, locale=po.parts[-3], domain=po.stem)
            with po.with_suffix(".mo").open("wb") as fh:
                write_mo(fh, catalog)


setup(
    packages=find_packages(include=["bot", "bot.*"]) + list(data_packages),
    package_dir={name: path for name, path in data_packages.items() if name.count(".") == 1},
    package_data={name: ["*"] for name in data_packages},
    exclude_package_data={"": ["*.pyc", "__pycache__", "*.pot", "*.pyx", "*.pxi", "*.c"]},
    cmdclass={"build_py": build_py_with_catalogs},
    ext_modules=cythonize(
        [Extension("bot.games._gridcore", ["bot/games/_gridcore.pyx"], extra_compile_args=["-O3"],
                   depends=sorted(str(p) for p in Path("bot/games/gridcore").glob("*.pxi")))],
        compiler_directives={"language_level": "3"},
    ),
)
