"""Optional extras stay optional: the core imports neither datatrove, ray nor zyte-common-items, and
an integration used without its extra raises one ImportError that names the extra to install."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

STORM = Path(__file__).parent / "site" / "article-storm.html"  # an article in German

OPTIONAL = ("datatrove", "ray", "zyte_common_items")


def run(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON value."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def test_the_core_imports_no_optional_integration():
    loaded = run(
        "import json, sys\n"
        "import scrapy_bodytext, scrapy_bodytext.plugin.addon, scrapy_bodytext.plugin.pipelines, scrapy_bodytext.plugin.settings\n"
        "import scrapy_bodytext.cli, scrapy_bodytext.plugin.zyte\n"
        "scrapy_bodytext.extract(b'<p>text</p>')\n"
        f"print(json.dumps(sorted(name for name in sys.modules if name.split('.')[0] in {OPTIONAL!r})))\n"
    )
    assert loaded == []


def test_without_datatrove_one_error_names_the_extra():
    found = run(
        "import json, sys\n"
        "sys.modules['datatrove'] = None  # as if it were not installed\n"
        "try:\n"
        "    import scrapy_bodytext.integrations.datatrove\n"
        "except ImportError as exc:\n"
        "    print(json.dumps([type(exc).__name__, str(exc)]))\n"
    )
    assert found[0] == "MissingExtra"
    assert found[1].startswith("scrapy_bodytext.integrations.datatrove needs the optional package 'datatrove'")
    assert found[1].endswith('install the extra: pip install "scrapy-bodytext[datatrove]"')


def test_zyte_article_dict_items_need_no_zyte_package():
    found = run(
        "import json, sys\n"
        "sys.modules['zyte_common_items'] = None\n"
        "from scrapy_bodytext import extract\n"
        "from scrapy_bodytext.plugin import zyte\n"
        "from scrapy_bodytext.plugin.settings import load_settings\n"
        "settings = load_settings({'BODYTEXT_FIELDS': 'zyte-article'})\n"
        "item = {'url': 'https://example.org/a', 'headline': 'Kept'}\n"
        f"result = extract(open({str(STORM)!r}, 'rb').read())\n"
        "zyte.fill_dict(item, zyte.article_values(result), overwrite=False)\n"
        "print(json.dumps([settings.zyte, zyte.is_article(item), item]))\n"
    )
    zyte_on, is_article, item = found
    assert zyte_on is True and is_article is False
    assert item["headline"] == "Kept" and item["inLanguage"] == "de"
    assert item["articleBody"].startswith("Sturm: Fähre muss eine Nacht im Hafen bleiben\n")
    assert set(item["metadata"]) == {"probability"} and item["metadata"]["probability"] > 0.5
