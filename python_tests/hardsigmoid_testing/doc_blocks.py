"""The fenced code blocks of the project's documents (README.md and docs/*.md), for the tests
that run them: test_docs_examples.py (as a CMake build's user), test_pip_install.py (as a pip
user) and test_troubleshooting.py."""

import re

from .config import REPO_ROOT

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
# A block whose first line is `# example: PATH` or `// example: PATH` is an excerpt of PATH.
MARKER = re.compile(r"^(?:#|//) example: (\S+)")


def blocks(document):
    """(language, body) of each fenced block of `document`, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(document.read_text())]


def marked(body):
    """The file a block is an excerpt of, or None."""
    match = MARKER.match(body)
    return match.group(1) if match else None


def python_script(document):
    """The document's Python blocks that are not excerpts, joined: run as one script."""
    return "\n".join(body for language, body in blocks(document)
                     if language == "python" and not marked(body))
