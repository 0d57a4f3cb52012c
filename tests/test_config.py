"""The book's configuration, as Jupyter Book turns it into Sphinx settings: offline assets, strict
references, and launch buttons that appear as soon as one setting (repository.url) is filled in."""

import sys
from pathlib import Path
from types import SimpleNamespace

import yaml
from jupyter_book.config import get_final_config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import book_extras  # noqa: E402


def _sphinx_config(user_yaml: dict) -> dict:
    config, _ = get_final_config(user_yaml=user_yaml, cli_config={"latex_individualpages": False}, sourcedir=ROOT)
    return config


def _user_yaml() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def test_site_assets_are_served_locally():
    config = _sphinx_config(_user_yaml())
    assert "://" not in config["mathjax_path"]
    assert config["nb_ipywidgets_js"] and all("://" not in url for url in config["nb_ipywidgets_js"])
    assert all("://" not in value for attrs in config["nb_ipywidgets_js"].values() for value in attrs.values())
    assert config["intersphinx_mapping"] == {}


def test_builds_are_strict():
    config = _sphinx_config(_user_yaml())
    assert config["nitpicky"] is True
    assert config["nb_execution_raise_on_error"] is True
    assert config["nb_execution_allow_errors"] is False


def test_launch_buttons_follow_the_repository_setting():
    user = _user_yaml()
    assert user["repository"]["url"] == "", "the published default has no repository"
    config = _sphinx_config(user)
    hook_config = SimpleNamespace(html_theme_options=dict(config["html_theme_options"]))
    book_extras.launch_buttons_need_a_repository(None, hook_config)
    assert "launch_buttons" not in hook_config.html_theme_options

    user["repository"]["url"] = "https://github.com/someone/scalability-book"
    config = _sphinx_config(user)
    options = dict(config["html_theme_options"])
    book_extras.launch_buttons_need_a_repository(None, SimpleNamespace(html_theme_options=options))
    assert options["repository_url"] == "https://github.com/someone/scalability-book"
    assert options["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert options["launch_buttons"]["colab_url"].startswith("https://colab")


def test_the_trimmed_site_loses_each_tag_with_the_whitespace_before_it():
    """tools/build_book.py cuts the theme's icon script and sphinx-thebe's tags from every page (each with the
    whitespace before it), and finds the icon names that start a word."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build_book

    page = ('<head>\n    <!-- So that users can add custom icons -->\n'
            '  <script defer src="../_static/scripts/fontawesome.js?digest=1"></script>\n'
            '  <link rel="stylesheet" type="text/css" href="../_static/sphinx-thebe.css?v=2" />\n'
            ' \t<script type="text/x-thebe-config">\n{"a": 1}\n</script>\n<title>t</title></head>')
    cut = build_book._cut(build_book._THEBE, build_book._cut(build_book._FONTAWESOME_JS, page))
    assert cut == "<head>\n<title>t</title></head>"
    assert build_book._cut(build_book._THEBE, "no tags here") == "no tags here"
    assert build_book._icon_names('<i class="fa-solid fa-play"></i> sofa-bed x_fa-no fa-') == {"fa-solid", "fa-play"}


def test_a_site_stands_only_if_it_was_rendered_from_the_current_sources():
    """tools/build_book.py keeps the last site when nothing changed; with --fresh --keep-full (make test) only
    when that build rendered every page from the current sources, in either mode for a stored-output build."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build_book

    stored = {"mode": "stored-outputs", "python": "3.11", "library": "L", "render": "R", "pages": "P"}
    executed = {**stored, "mode": "execute"}
    full, partial = {build_book.EVERY_PAGE: True}, {build_book.EVERY_PAGE: False}

    def kept(last, *, fresh=True, keep_full=True, wanted=stored, execute=executed):
        return build_book.kept_site(last, wanted, execute, fresh=fresh, keep_full=keep_full)

    assert "nothing changed" in kept({**stored, **partial}, fresh=False, keep_full=False)
    assert "nothing changed" in kept(dict(stored), fresh=False, keep_full=False)       # a record from before the flag
    assert kept({**stored, **partial}) is None                                          # incremental: rendered again
    assert "every page" in kept({**stored, **full})
    assert "make book" in kept({**executed, **full})
    assert kept({**executed, **partial}) is None
    assert kept({**executed, **full}, keep_full=False) is None                          # --fresh alone renders
    assert kept({**executed, **full}, execute=None) is None                             # make book: its own mode only
    assert kept({**executed, "pages": "P2", **full}) is None                            # a page changed since
    assert kept({**stored, "library": "L2", **full}) is None
    assert kept({}) is None


def test_kernels_of_the_build_and_nbval_start_alike(tmp_path, monkeypatch):
    """The build passes KERNEL_ARGS to its kernels; nbval's read the same line from the IPython folder that
    ``build_book.py --kernel-profile`` writes (the Makefile's nbval stage sets IPYTHONDIR to it)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build_book

    compile(build_book.KERNEL_LINE, "<kernel line>", "exec")
    assert f"--IPKernelApp.exec_lines={build_book.KERNEL_LINE}" in build_book.KERNEL_ARGS
    monkeypatch.setattr(build_book, "IPYTHON_DIR", tmp_path / "ipython")
    from traitlets.config.loader import PyFileConfigLoader

    folder = build_book.kernel_profile() / "profile_default"
    config = PyFileConfigLoader("ipython_kernel_config.py", path=str(folder)).load_config()
    assert config.IPKernelApp.exec_lines == [build_book.KERNEL_LINE]
    assert config.HistoryManager.enabled is False
    assert "IPYTHONDIR=\"$$($(BIN)/python tools/build_book.py --kernel-profile)\"" in (ROOT / "Makefile").read_text()
