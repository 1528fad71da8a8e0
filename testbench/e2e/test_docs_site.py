#!/usr/bin/python3
"""The documentation site builds and a newcomer can walk it (issue 28, item 6):

- `mkdocs build --strict` (Debian's mkdocs, mkdocs.yml at the root) builds docs/ with no
  warning and no error: every page in the nav exists and every relative link between
  pages resolves. mkdocs 1.4 does not check anchors, so this test does: every
  `page.html#anchor` and `#anchor` link in the built site names an id on its page.
- every Markdown page under docs/ is in the nav (none is left unreachable);
- README.md stays a front page: at most 350 lines, and its relative links resolve;
- every experiment command (scripts/experiments/*, not lib/) is named, as
  `scripts/experiments/NAME`, on a page of the nav.

mkdocs missing is a failure, not a skip: scripts/install-deps installs it.
"""
import html.parser
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import urllib.parse

import yaml

SRC = os.environ.get("OONIC_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(SRC, "docs")
README_MAX_LINES = 350


def nav_pages(nav):
    """The Markdown files the nav names, in order (paths relative to docs/)."""
    out = []
    for item in nav:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                if isinstance(value, list):
                    out.extend(nav_pages(value))
                elif isinstance(value, str) and not re.match(r"^[a-z]+://", value):
                    out.append(value)
    return out


def load_config():
    with open(os.path.join(SRC, "mkdocs.yml")) as f:
        # mkdocs.yml may carry !!python tags in general; ours does not, so safe_load.
        return yaml.safe_load(f)


class Links(html.parser.HTMLParser):
    """Collects the ids of a page and the hrefs of its main content."""

    def __init__(self):
        super().__init__()
        self.ids = set()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])


class DocsSite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mkdocs = shutil.which("mkdocs") or ("/usr/bin/mkdocs" if os.path.exists("/usr/bin/mkdocs")
                                                 else None)
        cls.config = load_config()
        cls.pages = nav_pages(cls.config.get("nav") or [])

    def build(self, site):
        if not self.mkdocs:
            self.fail("mkdocs is not installed: run scripts/install-deps (it installs Debian's "
                      "mkdocs), then run this test again")
        p = subprocess.run([self.mkdocs, "build", "--strict", "--config-file",
                            os.path.join(SRC, "mkdocs.yml"), "--site-dir", site],
                           cwd=SRC, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        out = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout)  # mkdocs colours its level names
        bad = [line for line in out.splitlines() if re.match(r"^(WARNING|ERROR)\b", line)]
        self.assertTrue(p.returncode == 0 and not bad,
                        "mkdocs build --strict failed (exit status %d):\n%s" % (p.returncode, out))
        return out

    def test_site_builds_strict_and_every_anchor_resolves(self):
        with tempfile.TemporaryDirectory() as site:
            self.build(site)
            pages = {}
            for d, _, files in os.walk(site):
                for f in files:
                    if f.endswith(".html"):
                        path = os.path.join(d, f)
                        parser = Links()
                        with open(path, encoding="utf-8") as fh:
                            parser.feed(fh.read())
                        pages[os.path.relpath(path, site)] = parser
            for md in self.pages:
                html_page = os.path.splitext(md)[0] + ".html"
                self.assertIn(html_page, pages, "nav page %s was not built" % md)
            broken = []
            for page, parser in sorted(pages.items()):
                if page in ("search.html", "404.html") or page.startswith("search/"):
                    continue
                for href in parser.hrefs:
                    url = urllib.parse.urlparse(href)
                    if url.scheme or url.netloc or not url.fragment:
                        continue
                    target = page if not url.path else os.path.normpath(
                        os.path.join(os.path.dirname(page), urllib.parse.unquote(url.path)))
                    if target.endswith("/") or os.path.isdir(os.path.join(site, target)):
                        target = os.path.join(target, "index.html")
                    if target not in pages:
                        continue  # a link to a file, not a page: mkdocs --strict checked it
                    if urllib.parse.unquote(url.fragment) not in pages[target].ids:
                        broken.append("%s: %s (no id '%s' on %s)" % (page, href, url.fragment, target))
            self.assertEqual(broken, [], "links to anchors that do not exist:\n" + "\n".join(broken))

    def test_every_docs_page_is_in_the_nav(self):
        self.assertTrue(self.pages, "mkdocs.yml has no nav")
        on_disk = set()
        for d, _, files in os.walk(DOCS):
            for f in files:
                if f.endswith(".md"):
                    on_disk.add(os.path.relpath(os.path.join(d, f), DOCS))
        self.assertEqual(sorted(on_disk - set(self.pages)), [],
                         "pages under docs/ that the nav of mkdocs.yml does not reach")
        self.assertEqual(sorted(set(self.pages) - on_disk), [], "nav pages that do not exist")

    def test_readme_is_a_front_page(self):
        with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
            text = f.read()
        lines = text.count("\n")
        self.assertLessEqual(lines, README_MAX_LINES,
                             "README.md has %d lines; keep it at most %d and move the rest to a "
                             "page of docs/ (mkdocs.yml's nav)" % (lines, README_MAX_LINES))
        missing = []
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            url = urllib.parse.urlparse(target)
            if url.scheme or url.netloc or not url.path:
                continue
            if not os.path.exists(os.path.join(SRC, urllib.parse.unquote(url.path))):
                missing.append(target)
        self.assertEqual(missing, [], "README.md links to files that do not exist")

    def test_every_experiment_is_named_in_the_nav(self):
        exp_dir = os.path.join(SRC, "scripts", "experiments")
        commands = sorted(f for f in os.listdir(exp_dir)
                          if os.path.isfile(os.path.join(exp_dir, f)) and not f.startswith(".")
                          and os.access(os.path.join(exp_dir, f), os.X_OK))
        self.assertGreaterEqual(len(commands), 9, commands)
        text = ""
        for md in self.pages:
            with open(os.path.join(DOCS, md), encoding="utf-8") as f:
                text += f.read() + "\n"
        unnamed = [c for c in commands
                   if not re.search(r"scripts/experiments/%s(?![\w-])" % re.escape(c), text)]
        self.assertEqual(unnamed, [], "experiment commands no page of the nav names as "
                         "scripts/experiments/NAME (add a page or a section under Experiments)")


if __name__ == "__main__":
    unittest.main()
