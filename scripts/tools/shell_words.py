"""Splits one string as a shell would (quotes kept together) and prints each word on its own
line, for a script to read into an array without eval: scripts/torch_versions.sh's PYTEST_ARGS.

    python shell_words.py STRING
"""

import shlex
import sys

if __name__ == "__main__":
    sys.stdout.writelines(word + "\n" for word in shlex.split(sys.argv[1]))
