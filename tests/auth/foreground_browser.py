"""A text browser that stays in the foreground, as w3m or a curl wrapper does.

Usage: ``python foreground_browser.py URL``.  It fetches ``URL`` with urllib,
following redirects (the authorization server's 302 to the loopback listener),
and exits only once the last page has answered: 0 on a 200, else 1.  So it
blocks until the login's listener has replied.  With ``FOREGROUND_BROWSER_LOG``
set, it appends ``<status> <final URL's path>`` to that file.  With
``FOREGROUND_BROWSER_LINGER`` set, it then stays until its stdin ends, as a
browser in the terminal stays until the person quits it.
"""

import os
import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit

#: Seconds before a page that never answers is given up (longer than a login takes).
PATIENCE = 15.0


def main() -> int:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=PATIENCE) as page:
            page.read()
            status, landed = page.status, page.geturl()
    except (urllib.error.URLError, OSError) as exc:
        status, landed = 0, f"failed:{type(exc).__name__}"
    log = os.environ.get("FOREGROUND_BROWSER_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{status} {urlsplit(landed).path or landed}\n")
    if os.environ.get("FOREGROUND_BROWSER_LINGER"):
        sys.stdin.read()
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
