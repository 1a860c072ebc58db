"""What an edit changes in the published site: two builds' files compared, as Markdown.

Every file the two builds publish is compared, in every language:

* the table objects each page shows, matched by table id, row key and column
  key, each cell as the text the page's Markdown twin prints in its language:
  "13B · LoRA (27 GB): A40 $240 → RTX A6000 $290". A chart is drawn from a
  table's figures; its table's changes are its changes.
* the prose of each page's Markdown twin outside the tables, sentence by
  sentence: every sentence whose words changed, before → after.
* a page whose file changed while its tables and prose did not (a UI string,
  the menu): the lines that changed.
* every other file (downloads under data/, charts, sitemap.xml, llms.txt, the
  language chooser): what changed in it, record by record for the downloads.

``site_text`` reads what one build publishes (``site_text.py``), ``compare`` sets two of them side by
side (``compare.py``, with ``files.py`` for the files besides the pages and ``text_diff.py`` for lines
and words), ``format_report`` words the result (``report.py``). `build.py diff` (publish/diff.py) compares
a git revision with the working tree; `build.py prices import` (listings/) the site before and after an
import.
"""

from __future__ import annotations

from .compare import Report, compare
from .report import NO_CHANGE, format_report
from .site_text import SiteText, site_text

__all__ = ["NO_CHANGE", "Report", "SiteText", "compare", "format_report", "site_text"]
