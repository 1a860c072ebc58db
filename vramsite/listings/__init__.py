"""`build.py prices import LISTINGS`: a marketplace's listing export becomes the site's hourly prices.

export (CSV or JSON Lines, one machine a row)
  -> read.py       the rows as text, with their lines
  -> rows.py       each row's fields checked and typed (Decimal prices)
  -> cards.py      each listing's GPU name -> a card of data/gpus.yaml
  -> snapshot.py   per card the lowest available price; the counts
  -> prices_file.py  data/prices.yaml rewritten in place, comments and order kept
  -> command.py    the pages before and after, compared as `build.py diff` does; then the write

Listing files are untrusted: every bad row is reported at its line, all
together, and nothing is written while any is.
"""
