"""`build.py prices import LISTINGS`: a marketplace's listing export becomes the site's hourly prices, and a
list of its price history.

export (CSV or JSON Lines, one machine a row)
  -> read.py       the rows as text, with their lines
  -> rows.py       each row's fields checked and typed (Decimal prices)
  -> cards.py      each listing's GPU name -> a card of data/gpus.yaml
  -> snapshot.py   per card the lowest and median available price and its listings; the counts
  -> prices_file.py  data/prices.yaml rewritten in place, comments and order kept
  -> history_file.py the snapshot added as text to data/price_history.yaml (lowest, median, listings per card)
  -> command.py    the pages before and after, compared as `build.py diff` does; then both writes

`build.py prices record` (record.py) adds data/prices.yaml's list, after a
hand edit, to data/price_history.yaml the same way.

Listing files are untrusted: every bad row is reported at its line, all
together, and nothing is written while any is.
"""
