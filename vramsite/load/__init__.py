"""data/*.yaml -> a typed, checked SiteData (errors name file:line: field)."""

from .assemble import DATA_FILES, load_site
from .model import SiteData

__all__ = ["DATA_FILES", "SiteData", "load_site"]
