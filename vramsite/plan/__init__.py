"""`build.py plan`: one model on one card or set of cards, under one serving engine, answered as figures.

answer.py  the request checked against the site's data, and the answer: weights per card in the chosen
           format, the KV budget the engine leaves, whether it starts and fits (calc/weight_formats.py,
           calc/engines.py)
cli.py     its arguments, and the answer printed as lines or as JSON
"""
