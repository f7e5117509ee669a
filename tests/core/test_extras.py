"""A paper's optional dependency that is absent fails with one line naming its extra; tests that reach one skip."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from reprolab.config.extras import MissingExtraError, require

pytest_plugins = ["pytester"]
tomllib = pytest.importorskip("tomllib", reason="reads pyproject.toml with Python 3.11's tomllib")

REPO = Path(__file__).resolve().parents[2]
EXTRAS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def hide(monkeypatch, *names: str) -> None:
    """Make `import <name>` (and its submodules) fail as if the package were not installed (None in sys.modules)."""
    for name in [*names, *(m for m in sys.modules if m.split(".")[0] in names)]:
        monkeypatch.setitem(sys.modules, name, None)


def test_missing_extra_is_one_line_naming_pip_install(monkeypatch):
    hide(monkeypatch, "rdkit")
    with pytest.raises(MissingExtraError) as caught:
        require("rdkit.Chem", "degradequery")
    text = str(caught.value)
    assert text.startswith("rdkit is not installed") and "pip install -e '.[degradequery]'" in text and "\n" not in text
    assert isinstance(caught.value, ImportError)


def test_an_installed_module_is_returned():
    assert require("json", "none").dumps([1]) == "[1]"


def test_a_broken_import_inside_an_installed_package_is_not_blamed_on_the_extra(monkeypatch, tmp_path):
    (tmp_path / "brokenpkg").mkdir()
    (tmp_path / "brokenpkg" / "__init__.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as caught:
        require("brokenpkg", "x")
    assert not isinstance(caught.value, MissingExtraError) and caught.value.name == "no_such_dependency_xyz"


def test_import_sites_name_their_paper_extra(monkeypatch):
    """The real call sites: ECFP (degradequery), the GPT-2 tokenizer (deltamomentum), Nash-MTL's solver (apt)."""
    from experiments.degradequery.data import ecfp_matrix
    from experiments.deltamomentum.tokens import load_tokenizer
    from reprolab.mtl.weightings.aggregators import make_aggregator

    hide(monkeypatch, "rdkit", "tiktoken", "ecos")
    ecfp_matrix.cache_clear()
    with pytest.raises(MissingExtraError, match=re.escape("pip install -e '.[degradequery]'")):
        ecfp_matrix(("CCO",))
    with pytest.raises(MissingExtraError, match=re.escape("pip install -e '.[deltamomentum]'")):
        load_tokenizer("gpt2")
    with pytest.raises(MissingExtraError, match=re.escape("pip install -e '.[apt]'")):
        make_aggregator("nashmtl", n_tasks=2)


def test_one_paper_packages_are_extras_and_all_holds_every_extra():
    core = " ".join(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])
    for package in ("rdkit", "torch-geometric", "cvxpy", "ecos", "h5py", "datasets", "tiktoken", "tokenizers"):
        assert package not in core, f"{package} should be a paper extra"
        assert any(package in " ".join(deps) for deps in EXTRAS.values())
    listed = re.search(r"reprolab\[(.*)\]", EXTRAS["all"][0]).group(1).split(",")
    assert set(listed) == set(EXTRAS) - {"dev", "all"}
    assert "-e '.[dev,all]'" in (REPO / "Makefile").read_text()


def test_a_test_that_reaches_a_missing_extra_is_skipped_with_its_reason(pytester):
    pytester.makeconftest((REPO / "tests" / "conftest.py").read_text())
    pytester.makepyfile("""
        from reprolab.config.extras import MissingExtraError

        def test_needs_it():
            raise MissingExtraError("rdkit is not installed; it comes with the 'degradequery' extra")
    """)
    result = pytester.runpytest("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*rdkit is not installed*degradequery*"])
