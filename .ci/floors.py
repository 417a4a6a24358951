"""Print pip constraints pinning every runtime dependency of pyproject.toml to its declared floor.

    python .ci/floors.py > floors.txt && pip install -c floors.txt -e ".[test]"

CI installs these in a second environment and runs the engine and AppTest suites against them
(as scikit-learn's "minimum dependencies" job does), so a floor in pyproject.toml is only ever
raised, never claimed.
"""

import re
import sys
from pathlib import Path

import tomllib

#: not pinned: st.login's client, which only the browser tests exercise (not run on the floors), and which the test
#: extra's local OpenID Connect provider (oidc-provider-mock: authlib>=1.5, httpx>=0.26) needs newer than its floor
UNPINNED = {"authlib", "httpx"}

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
for requirement in project["dependencies"]:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*", requirement.split(";")[0])
    if match is None:
        sys.exit(f"{requirement!r}: every runtime dependency needs a plain '>=' floor")
    if match.group(1).lower() not in UNPINNED:
        print(f"{match.group(1)}=={match.group(2)}")
