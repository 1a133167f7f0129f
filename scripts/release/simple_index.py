"""Writes a package index of the files in DIST (wheels and sdists) as PEP 503's "simple" pages,
the static form every index speaks, so that pip and uv install from it as from a public index
once a web server serves INDEX (scripts/release/check_index_install.sh: python -m http.server on
127.0.0.1).

    python simple_index.py DIST INDEX

INDEX/simple/index.html lists the projects; INDEX/simple/<normalized name>/index.html links each
file (INDEX/files/<file>, copied) with its sha256 and, from the file's own metadata, its
Requires-Python (data-requires-python, which pip and uv read before downloading).
"""

import email.parser
import hashlib
import html
import pathlib
import re
import shutil
import sys
import tarfile
import zipfile


def normalized(name):
    """PEP 503's form of a project name: hardsigmoid_ops -> hardsigmoid-ops."""
    return re.sub(r"[-_.]+", "-", name).lower()


def core_metadata(path):
    """The file's core metadata (a wheel's dist-info/METADATA, an sdist's PKG-INFO) as a message."""
    if path.name.endswith(".whl"):
        with zipfile.ZipFile(path) as wheel:
            member = next(n for n in wheel.namelist()
                          if re.fullmatch(r"[^/]+\.dist-info/METADATA", n))
            text = wheel.read(member).decode()
    else:
        with tarfile.open(path) as sdist:
            member = next(m for m in sdist.getmembers() if re.fullmatch(r"[^/]+/PKG-INFO", m.name))
            text = sdist.extractfile(member).read().decode()
    return email.parser.Parser().parsestr(text, headersonly=True)


def page(title, links):
    body = "\n".join(links)
    return (f"<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.0\">"
            f"<title>{html.escape(title)}</title></head>\n<body>\n{body}\n</body></html>\n")


def main(dist, index):
    dist, index = pathlib.Path(dist), pathlib.Path(index)
    files = sorted(p for p in dist.iterdir() if p.name.endswith((".whl", ".tar.gz")))
    if not files:
        sys.exit(f"{dist}: no wheel or sdist")
    shutil.rmtree(index, ignore_errors=True)
    (index / "files").mkdir(parents=True)
    projects = {}
    for path in files:
        metadata = core_metadata(path)
        shutil.copy2(path, index / "files" / path.name)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        attributes = f' href="../../files/{html.escape(path.name)}#sha256={digest}"'
        if metadata["Requires-Python"]:
            attributes += f' data-requires-python="{html.escape(metadata["Requires-Python"])}"'
        projects.setdefault(normalized(metadata["Name"]), []).append(
            f"<a{attributes}>{html.escape(path.name)}</a><br>")
    for project, links in projects.items():
        (index / "simple" / project).mkdir(parents=True)
        (index / "simple" / project / "index.html").write_text(page(f"Links for {project}", links))
    (index / "simple" / "index.html").write_text(
        page("Simple index", [f'<a href="{p}/">{p}</a><br>' for p in sorted(projects)]))
    for project, links in projects.items():
        print(f"{project}: {len(links)} file(s)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
